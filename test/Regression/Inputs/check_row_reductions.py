"""Checks row_reductions.tdsl's outputs in DIR against numpy (float64
references): products and sums within 1e-5 relative to the sum of the
terms' magnitudes (f32) or 1e-12 (f64), maxima, minima and integer sums
exact. Prints one line per output file and a count of wrong entries."""
import sys

import numpy as np

d = sys.argv[1]
A = np.load(d + "/A.npy").astype(np.float64)
x = np.load(d + "/x.npy").astype(np.float64)
D = np.load(d + "/D.npy")
y = np.load(d + "/y.npy")
K = np.load(d + "/K.npy").astype(np.int64)
E = np.exp(A - 0.5)
ref = [
    (A @ x, np.abs(A) @ np.abs(x), 1e-5),
    (A.sum(1), np.abs(A).sum(1), 1e-5),
    (A.max(1), None, 0),
    (A.min(1), None, 0),
    (E.sum(1), E.sum(1), 1e-5),
    (D @ y, np.abs(D) @ np.abs(y), 1e-12),
    (y @ D, np.abs(y) @ np.abs(D), 1e-12),
    (K.sum(1).astype(np.float64), None, 0),
    (K.max(1).astype(np.float64), None, 0),
]
wrong = 0
for name in ["static.npy", "dynamic.npy"]:
    got = np.load(d + "/" + name)
    bad = []
    for c, (want, scale, tol) in enumerate(ref):
        err = np.abs(got[:, c] - want)
        lim = tol * scale if scale is not None else np.zeros_like(want)
        n = int((err > lim).sum())
        if n:
            bad.append("column %d: %d (worst %.3g)" % (c, n, err.max()))
        wrong += n
    print(name, got.shape, "ok" if not bad else "; ".join(bad))
print("wrong:", wrong)
