# The saved fields of Inputs/init_fills.tdsl against numpy's Philox: field
# k draws from stream seed + (k + 1) * 0x9E3779B97F4A7C15 (language.md 4.1).
import math
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import philox  # noqa: E402

SEED = 42
fields = [  # name, shape, kind, scale
    ("a", (37, 5), "normal_f32", math.sqrt(2 / 37)),  # fan in 37
    ("b", (1000,), "uniform_f32", 0.5),
    ("c", (33, 3), "uniform_f64", math.sqrt(6 / (33 + 3))),
    ("d", (20,), "normal_f64", 2.0),
    ("e", (4, 4), "normal_f32", 1.0),
]
for k, (name, shape, kind, scale) in enumerate(fields):
    stream = (SEED + (k + 1) * 0x9E3779B97F4A7C15) % 2**64
    n = int(np.prod(shape))
    draw = getattr(philox, kind)(stream, np.arange(n))
    T = np.float32 if kind.endswith("f32") else np.float64
    if kind.startswith("normal"):
        want = draw * T(scale)
    else:
        want = draw * T(2 * scale) - T(scale)
    got = np.load("m_%s.npy" % name).reshape(-1)
    assert got.dtype == T, (name, got.dtype)
    assert np.array_equal(got, want.astype(T)), (name, got[:4], want[:4])
print("%d fields match" % len(fields))
