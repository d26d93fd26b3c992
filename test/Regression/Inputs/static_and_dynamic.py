"""Compares NAME-0.npy (static sizes) and NAME-1.npy (run-time sizes) in a
folder with f64 numpy references, relative 1e-5 of the largest |reference|
(at least 1), and prints one line per result and the count of wrong ones."""
import numpy as np


def check(d, refs):
    wrong = 0
    for name, ref in refs.items():
        for tag in ("0", "1"):
            got = np.load("%s/%s-%s.npy" % (d, name, tag)).astype(np.float64)
            ok = got.shape == ref.shape and (
                np.abs(got - ref).max() / max(np.abs(ref).max(), 1.0) < 1e-5)
            wrong += not ok
            print(name, tag, got.shape, "ok" if ok else "WRONG")
    print("wrong:", wrong)
