"""Compares the files of Inputs/rng.tdsl in each folder with philox.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "Inputs"))
import philox  # noqa: E402

n = 50000
want = {
    "a.npy": ("scalar f32", philox.normal_f32(42, np.arange(n))),
    "b.npy": ("scalar f64", philox.normal_f64(42, np.arange(n))),
    "c.npy": ("tensor f32", philox.normal_f32(9, np.arange(2100)).reshape(300, 7)),
    "d.npy": ("tensor f64", philox.normal_f64(9, np.arange(n))),
    "e.npy": ("uniform f32", philox.uniform_f32(5, 3 * np.arange(n))),
    "f.npy": ("uniform f64", philox.uniform_f64(5, np.arange(n))),
}
for folder in sys.argv[1:]:
    for name, (what, ref) in want.items():
        got = np.load(os.path.join(folder, name))
        same = got.dtype == ref.dtype and got.shape == ref.shape and \
            np.array_equal(got.view(np.uint8), ref.view(np.uint8))
        print("%s %s: %s" % (os.path.basename(folder), what,
                             "bitwise" if same else "DIFF (%d values)" % int(np.sum(got != ref))))
