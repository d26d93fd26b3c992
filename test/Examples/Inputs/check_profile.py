"""Checks a --profile-json file of examples/matmul.tdsl.

usage: check_profile.py FILE.json N

The JSON must parse, hold a "kernels" list, and contain the kernel of the
example's matmul function (index notation at matmul.tdsl:12) with exactly
one call and flops == 2 * N^3 (N = 256: one multiply and one add per term).
"""
import json
import sys

path, n = sys.argv[1], int(sys.argv[2])
with open(path) as f:
    prof = json.load(f)

assert isinstance(prof.get("run_ms"), (int, float)) and prof["run_ms"] > 0, prof.get("run_ms")
kernels = prof["kernels"]
assert isinstance(kernels, list) and kernels, "no kernels in the profile"
for k in kernels:
    for key in ("name", "where", "kind", "calls", "total_ms", "mean_us", "flops", "bytes"):
        assert key in k, "kernel entry without %r: %r" % (key, k)

mm = [k for k in kernels if k["where"].startswith("matmul.tdsl:12:")]
assert len(mm) == 1, "expected one kernel at matmul.tdsl:12, found %r" % mm
mm = mm[0]
assert mm["kind"] == "kernel", mm
assert mm["name"].startswith("matmul."), mm
assert mm["calls"] == 1, "calls = %r, expected 1" % mm["calls"]
assert mm["flops"] == 2 * n ** 3, "flops = %r, expected 2*%d^3 = %d" % (mm["flops"], n, 2 * n ** 3)
assert mm["total_ms"] >= 0 and abs(mm["mean_us"] - 1000.0 * mm["total_ms"]) <= 1e-3 * max(1.0, mm["mean_us"]), mm
print("profile JSON ok: %s at %s, calls %d, flops %d" % (mm["name"], mm["where"], mm["calls"], mm["flops"]))
