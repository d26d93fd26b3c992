"""Checks whole_reductions.tdsl's saves against numpy (f64 references).

Sums: relative error at most 2e-6 of the sum of magnitudes for f32 inputs
(the issue's bound for 10^7 uniform values; numpy's own pairwise f32 sum is
within it); max, min and integer sums exact. The inputs are the .npy files
the test wrote (x, y, k) and those the program saved (sx, sy, sk, u).
"""
import os
import sys

import numpy as np

d = sys.argv[1]
os.chdir(d)
bad = 0


def check(name, got, ref, scale=None, exact=False):
    global bad
    err = abs(float(got) - float(ref))
    tol = 0.0 if exact else 2e-6 * float(scale if scale is not None else abs(ref))
    ok = err <= tol
    bad += not ok
    print(f"{name}: {'ok' if ok else 'WRONG'} got {float(got)!r} ref {float(ref)!r}")


def reduce_all(label, r, x, y, k):
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    check(label + " sum(x)", r[0], x64.sum(), np.abs(x64).sum())
    check(label + " max(x)", r[1], x.max(), exact=True)
    check(label + " min(x)", r[2], x.min(), exact=True)
    yy = (y * np.float32(1.5)).astype(np.float64)
    check(label + " sum yy*y^T", r[3], (yy * y64.T).sum())
    check(label + " sum(k)", r[4], np.float32(k.astype(np.int64).sum()), exact=True)
    check(label + " max(k)", r[5], np.float32(k.max()), exact=True)
    check(label + " sum(x*x)", r[6], (x64 * x64).sum())
    check(label + " sum(f64(x))", r[7], np.float32(x64.sum()), exact=True)


u = np.load("u.npy")  # uniform(f32[10^7], 7): element k is uniform(7, k)
check("sum of 10^7 uniform", np.load("big.npy")[0], u.astype(np.float64).sum())
reduce_all("static", np.load("static.npy"), np.load("sx.npy"), np.load("sy.npy"),
           np.load("sk.npy"))
reduce_all("dynamic", np.load("dynamic.npy"), np.load("x.npy"), np.load("y.npy"),
           np.load("k.npy"))
print("wrong:", bad)
