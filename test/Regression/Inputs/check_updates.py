"""Checks the files of Inputs/updates.tdsl against naive loops in numpy.

usage: check_updates.py prepare DIR | check DIR..."""
import os
import sys

import numpy as np


def prepare(d):
    rng = np.random.default_rng(3)
    n = 7
    a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n)
    np.save(os.path.join(d, "a.npy"), a)
    np.save(os.path.join(d, "b.npy"), rng.uniform(-1, 1, n))


def reference(d):
    a = np.load(os.path.join(d, "a.npy"))
    b = np.load(os.path.join(d, "b.npy"))
    n = len(b)
    lu = a.copy()
    for k in range(n):
        for i in range(k + 1, n):
            lu[i, k] /= lu[k, k]
            for j in range(k + 1, n):
                lu[i, j] -= lu[i, k] * lu[k, j]
    x = b.copy()
    for i in range(n):
        x[i] = b[i] - sum(lu[i, j] * x[j] for j in range(i))
    u = np.zeros(n)
    for _ in range(25):
        for i in range(1, n - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1] + b[i])
    # L U = A, the defining property, besides the loop above.
    low = np.tril(lu, -1) + np.eye(n)
    assert np.allclose(low @ np.triu(lu), a)
    return {"lu.npy": lu, "fwd.npy": x, "gs.npy": u}


if sys.argv[1] == "prepare":
    prepare(sys.argv[2])
    sys.exit(0)
for d in sys.argv[2:]:
    for name, want in reference(d).items():
        got = np.load(os.path.join(d, name))
        err = np.max(np.abs(got - want) / np.maximum(np.abs(want), 1.0))
        # The same operations in the same order up to sums' association.
        print("%s %s %s (largest error %.1e)" % (os.path.basename(d), name,
                                                 "ok" if err < 1e-13 else "FAIL", err))
