"""Inputs and numpy references for in_place_updates.tdsl.

prepare DIR: writes the inputs. check DIR...: compares each DIR's outputs
with numpy (FDTD-2D as PolyBench's C writes it, Jacobi-1D's sweeps) within
1e-12, and the DIRs with each other bit for bit.
"""
import sys

import numpy as np


def prepare(d):
    rng = np.random.default_rng(5)
    np.save(d + "/fict.npy", rng.random(6))
    for name in ("ex", "ey", "hz"):
        np.save("%s/%s.npy" % (d, name), rng.random((23, 41)))
    np.save(d + "/a.npy", rng.random(77))
    np.save(d + "/b.npy", rng.random(77))
    np.save(d + "/q.npy", rng.random((17, 17)))
    w = rng.integers(1, 100, size=(37, 37)).astype(np.int32)
    w[rng.random((37, 37)) < 0.7] = 999999  # no edge
    np.fill_diagonal(w, 0)
    np.save(d + "/p.npy", w)


def fdtd(d):
    fict = np.load(d + "/fict.npy")
    ex, ey, hz = (np.load("%s/%s.npy" % (d, n)) for n in ("ex", "ey", "hz"))
    nx, ny = ex.shape
    for t in range(6):
        ey[0, :] = fict[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] +
                                             ey[i + 1, j] - ey[i, j])
    return hz + 2.0 * ex + 3.0 * ey


def jacobi(d):
    a, b = np.load(d + "/a.npy"), np.load(d + "/b.npy")
    for t in range(9):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    return a


def rank1(d):
    q = np.load(d + "/q.npy")
    for k in range(q.shape[0]):
        q = q + 0.05 * np.outer(q[:, k], q[k, :])
    return q


def floyd(d):
    p = np.load(d + "/p.npy").astype(np.int64)
    for k in range(p.shape[0]):
        p = np.minimum(p, p[:, k:k + 1] + p[k:k + 1, :])
    return p


def check(dirs):
    refs = {"fdtd": fdtd(dirs[0]), "jacobi": jacobi(dirs[0]),
            "rank1": rank1(dirs[0]), "floyd": floyd(dirs[0])}
    for name, ref in refs.items():
        outs = [np.load("%s/out-%s.npy" % (d, name)) for d in dirs]
        err = max(float(np.abs(o - ref).max()) for o in outs)
        same = all((o == outs[0]).all() for o in outs)
        print("%s: %s, runs identical: %s" %
              (name, "within 1e-12" if err < 1e-12 else "OFF by %g" % err, same))


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2])
    else:
        check(sys.argv[2:])
