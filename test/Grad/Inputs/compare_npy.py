"""Compares the .npy files a test program saved in a folder with reference
gradients: one line per file, `name shape ok` or `WRONG` (relative 1e-5 of
the reference's largest element), then `wrong: N`."""
import numpy as np


def compare(folder, refs):
    wrong = 0
    for name, ref in refs:
        ref = np.asarray(ref, dtype=np.float64)
        got = np.load("%s/%s.npy" % (folder, name)).astype(np.float64)
        ok = got.shape == ref.shape and np.allclose(
            got, ref, rtol=0, atol=1e-5 * max(1.0, np.abs(ref).max()))
        wrong += not ok
        print(name, got.shape, "ok" if ok else "WRONG")
    print("wrong:", wrong)
