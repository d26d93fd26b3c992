"""Recomputes the sums of Inputs/shared_draws.tdsl with philox.py and numpy,
in the program's order (a reducing `parallel for` sums each of its 256
chunks in order, then the chunks' sums in order), and compares draws.npy
in each folder given with them bit for bit."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "Inputs"))
import philox  # noqa: E402

n, s = 100003, 2024
off = n // 7


def w(i):
    return (i % 7 + 1).astype(np.float64)


def ordered_sum(values, zero=np.float64(0)):
    acc = zero
    for v in values:
        acc = acc + v
    return acc


def parallel_sum(lb, ub, f):
    i = np.arange(lb, ub, dtype=np.int64)
    v = f(i)
    total = ub - lb
    parts = []
    for p in range(256):
        chunk = v[p * total // 256:(p + 1) * total // 256]
        parts.append(np.add.accumulate(np.concatenate([[chunk.dtype.type(0)], chunk]))[-1])
    return ordered_sum(parts, v.dtype.type(0))


u32, u64, n32, n64 = philox.uniform_f32, philox.uniform_f64, philox.normal_f32, philox.normal_f64
f = np.float64
want = [
    parallel_sum(0, n, lambda i: u32(s, 2 * i).astype(f) * w(i) + u32(s, 2 * i + 1).astype(f)),
    parallel_sum(5, n, lambda i: u32(s, i).astype(f) * w(i) - u32(s, i + 1).astype(f)),
    parallel_sum(0, n, lambda i: n32(s, 4 * i + 3).astype(f) * w(i)),
    parallel_sum(0, n, lambda i: u64(s, 8 * i + 37) * w(i)),
    parallel_sum(0, n, lambda i: n64(s, 16 * i) * w(i)),
    parallel_sum(0, n, lambda i: u32(s, 128 * i).astype(f) * w(i) + u32(s, 3 * i + 1).astype(f)),
    parallel_sum(0, n, lambda i: u32(s, 2 * (i + off) + 1).astype(f) * w(i)
                 + u32(s, 2 * i + off).astype(f)),
    parallel_sum(1, n, lambda i: u32(s, 2 * i - 1).astype(f) * w(i)),
    parallel_sum(0, n, lambda i: np.where(i % 3 == 0, u32(123456789012, 4 * i + 1).astype(f), 1.0)),
    np.max(u32(s, 4 * np.arange(n) + 2)),
    parallel_sum(0, n, lambda i: (u32(s, 2 * i) * u32(s, 2 * i) + u32(s, 2 * i + 1)
                                  * u32(s, 2 * i + 1) < np.float32(1)).astype(np.int64)),
]
i = np.arange(-37, 1000)
acc = ordered_sum(n32(s, i + 40).astype(f) * w(i + 40))
ij = [(a, b) for a in range(50) for b in range(3)]
short = ordered_sum([f(u32(s, np.array([3 * a + b]))[0]) * f(b % 7 + 1) for a, b in ij])
ij = [(a, b) for a in range(20) for b in range(100)]
rows = ordered_sum([f(u32(s, np.array([100 * a + b]))[0]) * f(b % 7 + 1) for a, b in ij])
seeds = ordered_sum([parallel_sum(0, 1000, lambda i: u32(1000 + k, 2 * i + 1).astype(f))
                     for k in range(3)])
i = np.arange(0, 1000, dtype=np.int64)
r15 = ordered_sum(u32(s, i - 10).astype(f) * w(i))
i = np.arange(9223372036854775800, 9223372036854775807, dtype=np.int64)
top = ordered_sum(u32(s, i).astype(f) * w(i % 5))
want = np.array([f(x) for x in want] + [acc, short, rows, seeds, r15, top])

for folder in sys.argv[1:]:
    got = np.load(os.path.join(folder, "draws.npy"))
    for k, ref in enumerate(want):
        same = got.shape == want.shape and got[k].view(np.uint64) == ref.view(np.uint64)
        print("%s r%d: %s" % (os.path.basename(folder), k,
                              "bitwise" if same else "DIFF %r %r" % (got[k], ref)))
