"""Checks the --profile-json of examples/matmul.tdsl run against the test
double of libcuda (%fake_cuda), which reports every launch as 1.5 ms; the
kernels' results are checked on a GPU by gpu-run-matmul.test.

usage: check_gpu_profile.py FILE.json

Exactly the six kernels of the example, each at its DSL line, kind
"kernel", 1 call, total_ms 1.5 and mean_us 1500; no memcpy rows (buffers
are managed, nothing is copied): the two parallel fors, the two matmuls and
the two whole-tensor reductions sum(C) and max(abs(C - A @ B)), which
tdsl-gpu-reduce runs on the GPU (tdsl_main_index_gen, tdsl_main_index_gen_1).
The matmuls carry the work the compiler counts (tdsl_cuda_set_work):
2 * 256^3 flops. (The reduction kernels are not given a work count.)
"""
import json
import sys

with open(sys.argv[1]) as f:
    prof = json.load(f)
assert isinstance(prof.get("run_ms"), (int, float)) and prof["run_ms"] > 0, prof.get("run_ms")
rows = {(k["name"], k["where"]): k for k in prof["kernels"]}
expected = {("tdsl_main_parallel_for", "matmul.tdsl:17:7"), ("tdsl_main_parallel_for_1", "matmul.tdsl:20:7"),
            ("matmul_index_gen", "matmul.tdsl:12:3"), ("tdsl_main_index_gen", "matmul.tdsl:24:29"),
            ("tdsl_main_matmul", "matmul.tdsl:26:43"), ("tdsl_main_index_gen_1", "matmul.tdsl:26:29")}
assert len(prof["kernels"]) == len(expected), "%d rows, expected %d" % (len(prof["kernels"]), len(expected))
assert set(rows) == expected, "rows %r, expected %r" % (sorted(rows), sorted(expected))
for key, k in rows.items():
    assert k["kind"] == "kernel", k
    assert k["calls"] == 1, k
    assert abs(k["total_ms"] - 1.5) < 1e-9, k
    assert abs(k["mean_us"] - 1500.0) < 1e-6, k
for key in [("matmul_index_gen", "matmul.tdsl:12:3"), ("tdsl_main_matmul", "matmul.tdsl:26:43")]:
    assert rows[key]["flops"] == 2 * 256 ** 3, rows[key]
    assert rows[key]["bytes"] > 0, rows[key]
print("GPU profile JSON ok: %d kernels" % len(rows))
