"""Arguments for approximate_math.tdsl, and its results against numpy in
float64, in units in the last place of the float32 result (subnormal
results count in subnormal ulps)."""
import os
import sys

import numpy as np

N = 65536


def prepare(d):
    rng = np.random.default_rng(7)
    q = N // 4
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, -1.0, 1e-45,
                         -104.0, -103.9, -87.5, -87.0, 88.72, 88.73, 1e-8,
                         -9.0, 9.0, 20.0, -20.0], np.float32)
    x = np.concatenate([rng.uniform(-104, 89, q), rng.uniform(-5, 5, q),
                        rng.standard_normal(q) * 1e-3,
                        rng.uniform(-30, 30, q - len(specials))])
    x = np.concatenate([x.astype(np.float32), specials])
    # log: small and large magnitudes, subnormals included.
    p = np.concatenate([rng.uniform(0, 10, q), 10.0 ** rng.uniform(-45, 38, q),
                        rng.uniform(0.5, 2, q),
                        np.abs(rng.standard_normal(q - len(specials))) * 1e-40])
    p = np.concatenate([p.astype(np.float32), specials])
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "p.npy"), p)


def ulps(got, ref):
    """Worst error in ulps where numpy's result is finite; the count of
    arguments where one is finite and the other not, or one NaN."""
    r32 = ref.astype(np.float32)
    fin = np.isfinite(r32)
    spacing = np.spacing(np.abs(r32)).astype(np.float64)
    err = np.abs(got.astype(np.float64) - ref) / spacing
    worst = err[fin].max()
    mismatch = int((np.isfinite(got) != fin).sum() +
                   (np.isnan(got) != np.isnan(r32)).sum() +
                   (got[~fin & ~np.isnan(r32)] != r32[~fin & ~np.isnan(r32)]).sum())
    return worst, mismatch


def check(d):
    with np.errstate(all="ignore"):
        x = np.load(os.path.join(d, "x.npy")).astype(np.float64)
        p = np.load(os.path.join(d, "p.npy")).astype(np.float64)
        for name, f, arg, bound in [("exp", np.exp, x, 6), ("tanh", np.tanh, x, 5),
                                    ("log", np.log, p, 1)]:
            got = np.load(os.path.join(d, name[0] + ".npy"))
            worst, mismatch = ulps(got, f(arg))
            print("%s: within %d ulp: %s, special values right: %s"
                  % (name, bound, worst <= bound, mismatch == 0))
            if worst > bound:
                print("  worst %.2f ulp" % worst)
        e = np.load(os.path.join(d, "e.npy"))
        l = np.load(os.path.join(d, "l.npy"))
        se = np.load(os.path.join(d, "se.npy"))
        sl = np.load(os.path.join(d, "sl.npy"))
        same = (np.array_equal(se, e[::1024], equal_nan=True) and
                np.array_equal(sl, l[::1024], equal_nan=True))
        print("scalar and vector identical:", same)


if __name__ == "__main__":
    {"prepare": prepare, "check": check}[sys.argv[1]](sys.argv[2])
