"""Checks shifted_reads.tdsl's outputs in DIR against numpy: the f32
stencil within 1e-6 relative to the sum of its terms' magnitudes, the f64
ones within 1e-12, the i32 one exactly. Prints one line per output."""
import sys

import numpy as np

d = sys.argv[1]
a = np.load(d + "/a.npy").astype(np.float64)
k = np.load(d + "/k.npy").astype(np.int64)
m = np.load(d + "/d.npy")
s = np.load(d + "/s.npy")


def five(a):
    n = len(a)
    t = [a[0:n - 4], -2 * a[1:n - 3], 3 * a[2:n - 2], -0.25 * a[3:n - 1], 0.5 * a[4:n]]
    return sum(t), sum(np.abs(x) for x in t)


def box(m):
    w = [[1, 2, 3], [5, 7, 11], [13, 17, 19]]
    r, c = m.shape
    t = [w[p][q] * m[p:r - 2 + p, q:c - 2 + q] for p in range(3) for q in range(3)]
    return sum(t), sum(np.abs(x) for x in t)


def smooth(a, steps):
    a = a.copy()
    for _ in range(steps):
        a[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.125 * a[2:]
    return a, np.abs(a) + 1


f, fs = five(a)
b, bs = box(m)
sm, ss = smooth(s, 3)
want = {
    "five": (f, fs, 1e-6),
    "three": (k[:-2] + 2 * k[1:-1] + 4 * k[2:], None, 0),
    "box": (b, bs, 1e-12),
    "smooth": (sm, ss, 1e-12),
}
for name, (ref, scale, tol) in want.items():
    for suffix in ["", "_dyn"]:
        got = np.load(d + "/" + name + suffix + ".npy").astype(np.float64)
        if got.shape != ref.shape:
            print(name + suffix, "shape", got.shape, "!=", ref.shape)
            continue
        lim = tol * scale if scale is not None else 0
        bad = int((np.abs(got - ref) > lim).sum())
        print(name + suffix, got.shape, "ok" if bad == 0 else "%d wrong" % bad)
