"""load-save.test helper.

  npy_io.py make DIR      writes the inputs of load_save.tdsl into DIR
  npy_io.py check DIR     checks the outputs load_save.tdsl saved in DIR
  npy_io.py bad KIND DIR  writes a bad DIR/in.npy for load_err*.tdsl

Inputs are numpy-written: a = f32 (37, 53) from a seeded numpy generator,
idx = i64 (101,) row indices, big = i64 (5,) values beyond 2^32.

Tolerances: scaled = a * 2 + 1 and picked (a gather) are exact in f32 (one
rounding each, the same as numpy's float32 arithmetic); rowmax is exact; the
column sums are f32 sums of 37 terms |a| < 4: rtol 1e-6, atol 1e-5 against
float64; i64 results are exact.
"""
import os
import sys

import numpy as np


def inputs():
    rng = np.random.default_rng(1234)
    a = (rng.standard_normal((37, 53)) * 1.5).astype(np.float32)
    idx = rng.integers(0, 37, size=101).astype(np.int64)
    big = np.array([2 ** 40 + 3, -(2 ** 35), 7, 2 ** 33 - 1, -1], dtype=np.int64)
    return a, idx, big


def make(d):
    a, idx, big = inputs()
    np.save(os.path.join(d, "a.npy"), a)
    np.save(os.path.join(d, "idx.npy"), idx)
    np.save(os.path.join(d, "big.npy"), big)


def check(d):
    a, idx, big = inputs()
    bad = []

    def expect(name, ref, exact=True, rtol=0.0, atol=0.0):
        got = np.load(os.path.join(d, name + ".npy"))
        if got.dtype != ref.dtype or got.shape != ref.shape:
            bad.append("%s: %s %s, expected %s %s" % (name, got.dtype, got.shape, ref.dtype, ref.shape))
            return
        if exact:
            ok = np.array_equal(got, ref)
        else:
            ok = np.allclose(got.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=atol)
        if not ok:
            bad.append("%s differs from numpy (%s): max |diff| %g" % (
                name, "exact" if exact else "rtol %g atol %g" % (rtol, atol),
                float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))))

    expect("scaled", a * np.float32(2.0) + np.float32(1.0))
    expect("colsum", a.astype(np.float64).sum(axis=0).astype(np.float32), exact=False,
           rtol=1e-6, atol=1e-5)
    expect("rowmax", a.max(axis=1))
    expect("picked", a[idx, np.arange(idx.size) % a.shape[1]])
    expect("big2", big * 2 - 1)
    expect("b", a)

    with open(os.path.join(d, "out.txt")) as f:
        text = f.read()
    want = ("shape: 37 53 n: 101\n"
            "big total: %d\n"
            "reloaded: 0\n") % int(big.sum())
    if text != want:
        bad.append("printed\n%swanted\n%s" % (text, want))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        sys.exit(1)
    print("load-save: all outputs match numpy")


def bad_file(kind, d):
    p = os.path.join(d, "in.npy")
    if kind == "f64":
        np.save(p, np.zeros((3, 7), np.float64))
    elif kind == "rank1":
        np.save(p, np.zeros(7, np.float32))
    elif kind == "rank3":
        np.save(p, np.zeros((2, 3, 7), np.float32))
    elif kind == "cols":
        np.save(p, np.zeros((3, 6), np.float32))
    elif kind == "fortran":
        np.save(p, np.asfortranarray(np.zeros((3, 7), np.float32)))
    elif kind == "i32":
        np.save(p, np.arange(4, dtype=np.int32))
    elif kind == "garbage":
        with open(p, "wb") as f:
            f.write(b"not an npy file\n")
    else:
        raise SystemExit("unknown kind " + kind)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "check":
        check(sys.argv[2])
    elif sys.argv[1] == "bad":
        bad_file(sys.argv[2], sys.argv[3])
