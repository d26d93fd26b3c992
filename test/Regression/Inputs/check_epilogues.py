"""Checks the outputs of epilogues.tdsl in DIR against numpy in f64."""
import sys

import numpy as np

from static_and_dynamic import check

d = sys.argv[1]
L = lambda n: np.load("%s/%s.npy" % (d, n)).astype(np.float64)
A, b, c, X, Y, x, v = (L(n) for n in "A b c X Y x v".split())
P = [A @ L("B%d" % k) for k in range(1, 6)]
Z = X @ Y
i, j = np.indices(P[0].shape)
refs = {
    "relu": np.maximum(P[0] + b, 0.0),
    "rowbias": np.tanh(P[1]) * 2.0 - c[:, None],
    "square": P[2] * P[2] + 1.0,
    "batched": np.where(Z > 0.0, Z, 0.1 * Z),
    "matvec": A @ x * 3.0 + v,
    "diag": np.where(i == j, P[3] + 100.0, P[3] - j),
    "kept": np.exp(P[4] * 0.01) + P[4] @ L("W"),
}
check(d, refs)
