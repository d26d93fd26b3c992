"""Checks the outputs of conv_tiles.tdsl in DIR against numpy in f64."""
import sys

import numpy as np

d = sys.argv[1]
L = lambda n: np.load("%s/%s.npy" % (d, n)).astype(np.float64)
w, b, a, c = L("w"), L("b"), L("a"), L("c")


def conv(x, p, bias):
    x = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    n, ch, h, wd = x.shape
    out = np.zeros((n, w.shape[0], h - 2, wd - 2))
    for di in range(3):
        for dj in range(3):
            out += np.einsum("kc,ncij->nkij", w[:, :, di, dj],
                             x[:, :, di:di + h - 2, dj:dj + wd - 2])
    return out + bias[None, :, None, None]


zero = np.zeros_like(b)
refs = {"pad-a": conv(a, 1, b), "pad-c": conv(c, 1, b), "nopad-a": conv(a, 0, b),
        "window-a": conv(a, 0, zero), "window-c": conv(c, 0, zero), "dyn-a": conv(a, 1, b)}
wrong = 0
for name, ref in refs.items():
    got = L(name)
    ok = got.shape == ref.shape and np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max()
    wrong += not ok
    print(name, got.shape, "ok" if ok else "WRONG")
print("wrong:", wrong)
