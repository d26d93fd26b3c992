"""Writes the inputs of strided_reads.tdsl (`gen FOLDER`) or compares its
outputs with PyTorch's convolutions and numpy slices (`check FOLDER`): one
line per output, then `wrong: N`."""
import sys

import numpy as np

CONVS = [  # name, N, C, H, W, K, R, S, stride, padding
    ("a", 2, 3, 9, 10, 4, 3, 3, 2, 1),
    ("c", 1, 4, 20, 37, 9, 5, 5, 2, 2),
    ("d", 2, 3, 15, 40, 8, 3, 3, 3, 1),
    ("e", 2, 3, 15, 40, 8, 4, 4, 4, 0),
    ("f", 2, 3, 21, 45, 8, 7, 7, 5, 3),
    ("g", 2, 3, 12, 12, 8, 1, 1, 2, 0),
    ("h", 2, 3, 11, 70, 16, 3, 2, 2, 0),
    ("i", 2, 5, 17, 19, 16, 3, 3, 2, 1),
    ("j", 1, 4, 20, 70, 9, 5, 5, 3, 2),
]


def gen(folder):
    r = np.random.default_rng(5)
    f = lambda *s: (r.random(s) - 0.5).astype(np.float32)
    for n, N, C, H, W, K, R, S, _, _ in CONVS:
        np.save("%s/%sx.npy" % (folder, n), f(N, C, H, W))
        np.save("%s/%sw.npy" % (folder, n), f(K, C, R, S))
        np.save("%s/%sb.npy" % (folder, n), f(K))
    np.save(folder + "/v.npy", f(203))
    np.save(folder + "/m.npy", f(37, 61))


def check(folder):
    import torch
    load = lambda n: np.load("%s/%s.npy" % (folder, n)).astype(np.float64)
    refs = []
    for n, _, _, _, _, _, _, _, st, p in CONVS:
        x, w, b = (torch.from_numpy(load(n + s)) for s in "xwb")
        refs.append((n + "y", torch.nn.functional.conv2d(x, w, b, stride=st, padding=p).numpy()))
    refs.append(("ky", refs[0][1]))
    v, m = load("v"), load("m")
    refs += [
        ("s1", v[0:200:2]),
        ("s2", v[1:202:3] * 2),
        ("s3", m[1:37:2, 0:60:3]),
        ("s4", np.array([v[2 * i:2 * i + 3].max() for i in range(100)])),
        ("s5", np.array([[m[2 * i:2 * i + 3, 2 * j:2 * j + 3].sum() for j in range(29)]
                         for i in range(17)])),
        ("s6", v[0:200:2] + v[1:201:2]),
    ]
    sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Grad/Inputs")
    from compare_npy import compare
    compare(folder, refs)


if __name__ == "__main__":
    {"gen": gen, "check": check}[sys.argv[1]](sys.argv[2])
