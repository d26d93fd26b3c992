"""threads.test: every run of Inputs/threads.tdsl (one subdirectory each,
holding out.txt and the saved .npy files) must print the same text and save
bit-identical arrays as the first: reductions split into a fixed 256 chunks,
so the thread count cannot change even an f32 sum. Two results are also
checked against numpy: the count (exact) and the f32 sum (rtol 1e-4: an f32
sum of 4e6 terms in 256 chunks vs numpy's float64 sum).

usage: check_threads.py DIR...
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import philox  # noqa: E402

NAMES = ["s", "s64", "p", "m", "grid"]


def load(d):
    with open(os.path.join(d, "out.txt")) as f:
        text = f.read()
    return text, {n: np.load(os.path.join(d, n + ".npy")) for n in NAMES}


dirs = sys.argv[1:]
base_text, base = load(dirs[0])
bad = 0
for d in dirs[1:]:
    text, arrs = load(d)
    if text != base_text:
        print("FAIL: %s prints\n%swhile %s prints\n%s" % (d, text, dirs[0], base_text))
        bad += 1
    for n in NAMES:
        a, b = arrs[n], base[n]
        if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
            print("FAIL: %s.npy of %s is not bit-identical to %s's: %r vs %r"
                  % (n, d, dirs[0], a.ravel()[:4], b.ravel()[:4]))
            bad += 1
    print("compared %s with %s" % (os.path.basename(d), os.path.basename(dirs[0])))

n = 4000000
idx = np.arange(n, dtype=np.uint64)
lines = dict(l.split(": ", 1) for l in base_text.splitlines())
cnt = int(np.count_nonzero(philox.uniform_f32(15, idx) < np.float32(0.25)))
if int(lines["count"]) != cnt:
    print("FAIL: count %s, numpy %d (exact)" % (lines["count"], cnt))
    bad += 1
x = philox.uniform_f32(11, idx)
ref = float(np.sum((x * x - np.float32(0.3)).astype(np.float64)))
got = float(base["s"][0])
if not abs(got - ref) <= 1e-4 * abs(ref):
    print("FAIL: f32 sum %.9g, numpy %.9g (rtol 1e-4)" % (got, ref))
    bad += 1
if bad:
    sys.exit(1)
print("threads: %d runs identical; count %d exact; f32 sum %.9g vs numpy %.9g"
      % (len(dirs), cnt, got, ref))
