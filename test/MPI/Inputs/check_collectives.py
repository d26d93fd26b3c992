#!/usr/bin/env python3
"""Checks the out-*.npy files of collectives.tdsl run with N processes
against numpy. Usage: check_collectives.py DIR N"""
import os
import sys

import numpy as np

d, n = sys.argv[1], int(sys.argv[2])
ranks = range(n)


def x32(r):
    return (np.arange(12, dtype=np.float32) * np.float32(0.25) + np.float32(r)).reshape(3, 4)


def x64(r):
    return np.arange(12, dtype=np.float64).reshape(2, 2, 3) * (r + 1) - 3.0


def x16(r):
    return (np.arange(5, dtype=np.float32) * 0.5 + r).astype(np.float16)


def xbf(r):
    return np.arange(4, dtype=np.float32) - 2.0 * r  # small integers: exact in bf16


def xi32(r):
    return np.arange(6, dtype=np.int32) * (r + 1) - 7 * r


def xu64(r):
    return np.arange(3, dtype=np.uint64) + np.uint64(r) * np.uint64(1000)


def xi1(r):
    return np.arange(4) % (r + 2) == 0


def red(f, op):
    vals = [f(r) for r in ranks]
    out = vals[0]
    for v in vals[1:]:
        out = {"sum": lambda a, b: a + b, "max": np.maximum, "min": np.minimum}[op](out, v)
    return out


expected = {
    "s32": red(x32, "sum"), "a32": red(x32, "max"), "i32m": red(x32, "min"),
    "s64": red(x64, "sum"), "a64": red(x64, "max"),
    "s16": red(x16, "sum"), "i16": red(x16, "min"),
    "sbf": red(xbf, "sum"), "abf": red(xbf, "max"),
    "si32": red(xi32, "sum"), "ii32": red(xi32, "min"),
    "si64": np.array([sum(r * r + 3 for r in ranks)], dtype=np.int64),
    "ai64": np.array([max(r * r + 3 for r in ranks)], dtype=np.int64),
    "su64": red(xu64, "sum"),
    "si1": red(xi1, "max"), "ii1": red(xi1, "min"),
    "sm-a": np.full((2, 3), sum(r + 1 for r in ranks), dtype=np.float32),
    "sm-b": np.full(4, sum(r + 1 for r in ranks), dtype=np.float64),
    "sbig": red(lambda r: np.arange(100003, dtype=np.float32) + np.float32(r), "sum"),
    "semp": np.zeros(0, dtype=np.float32),
    "anan": np.full(2, np.nan, dtype=np.float32),
    "inan": np.full(2, np.nan, dtype=np.float64),
    "hnan": np.full(2, np.nan, dtype=np.float16),
    "bc": np.arange(3, dtype=np.float64) + 10.0 * (n - 1),
    "bm-a": np.ones((2, 3), dtype=np.float32),
    "bm-b": np.ones(4, dtype=np.float64),
}
bad = []
for name, want in expected.items():
    got = np.load(os.path.join(d, "out-%s.npy" % name))
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want, equal_nan=got.dtype.kind == "f"):
        bad.append("%s: got %s %s %r, want %s %s %r" % (
            name, got.dtype, got.shape, got.ravel()[:6], want.dtype, want.shape, want.ravel()[:6]))
if bad:
    sys.exit("\n".join(bad))
print("all %d results equal numpy's with %d process%s" % (len(expected), n, "" if n == 1 else "es"))
