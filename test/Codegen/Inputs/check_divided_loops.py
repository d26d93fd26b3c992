"""Writes the inputs of divided_loops.tdsl (`gen FOLDER`) or compares its
outputs with numpy (`check FOLDER`)."""
import sys

import numpy as np


def gen(folder):
    r = np.random.default_rng(4)
    np.save(folder + "/x.npy", r.random((2, 3, 5, 7)).astype(np.float32))
    np.save(folder + "/w.npy", r.random(3).astype(np.float32))
    np.save(folder + "/v.npy", r.random(10).astype(np.float32))


def check(folder):
    x, w, v = (np.load("%s/%s.npy" % (folder, n)) for n in "xwv")
    refs = [
        ("a", x.repeat(2, 2).repeat(2, 3)),
        ("b", np.array([[x[1, 2, i // 3, j] * w[i % 3] for j in range(7)] for i in range(15)])),
        ("c", np.array([[x[0, 1, i // 2, j] for j in range(7)] for i in range(9)])),
        ("d", np.array([v[k // 3] + k % 3 for k in range(30)])),
        ("e", np.array([[x[n, j % 3, 4, j // 3] for j in range(21)] for n in range(2)])),
    ]
    sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Grad/Inputs")
    from compare_npy import compare
    compare(folder, refs)


if __name__ == "__main__":
    {"gen": gen, "check": check}[sys.argv[1]](sys.argv[2])
