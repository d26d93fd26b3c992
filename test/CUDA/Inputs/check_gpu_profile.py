"""Checks the --profile-json of examples/matmul.tdsl run against the test
double of libcuda (%fake_cuda), which reports every launch as 1.5 ms; the
kernels' results are checked on a GPU by gpu-run-matmul.test.

usage: check_gpu_profile.py FILE.json

Exactly the seven kernels of the example, each at its DSL line, kind
"kernel", 1 call, total_ms 1.5 and mean_us 1500: the two parallel fors,
C's zeros (main_fill), the two matmuls and the two whole-tensor reductions
sum(C) and max(abs(C - A @ B)), which tdsl-gpu-reduce runs on the GPU
(tdsl_main_index_gen_2, tdsl_main_index_gen_3). The matmuls carry the work
the compiler counts (tdsl_cuda_set_work): 2 * 256^3 flops. (The reduction
kernels are not given a work count.)
And exactly these moves of data (tdsl-gpu-transfers), each charged to a
kernel's line:
  - memcpy d2d at 12:3, 256 KiB: bufferization's copy of C's zeros, made by
    the driver on the device;
  - prefetch d2h at 24:29, 2 calls, 256 KiB + 1 KiB: C, which the prints
    of C[0, 0] and C[255, 255] read, and sum(C)'s 256 block partials,
    which the host combines; charged to sum(C), the last kernel using them;
  - prefetch h2d at 26:29, 256 KiB: C again, for max(abs(C - A @ B));
  - prefetch d2h at 26:29, 1 KiB: that reduction's partials.
Nothing moves between the kernels that share A, B and A @ B.
"""
import json
import sys

with open(sys.argv[1]) as f:
    prof = json.load(f)
assert isinstance(prof.get("run_ms"), (int, float)) and prof["run_ms"] > 0, prof.get("run_ms")
rows = {(k["name"], k["where"]): k for k in prof["kernels"] if k["kind"] == "kernel"}
moves = {(k["name"], k["where"], k["kind"]): k for k in prof["kernels"] if k["kind"] != "kernel"}
expected = {("tdsl_main_index_gen", "matmul.tdsl:17:7"), ("tdsl_main_index_gen_1", "matmul.tdsl:20:7"),
            ("main_fill", "matmul.tdsl:12:3"),
            ("matmul_index_gen", "matmul.tdsl:12:3"), ("tdsl_main_index_gen_2", "matmul.tdsl:24:29"),
            ("tdsl_main_matmul", "matmul.tdsl:26:43"), ("tdsl_main_index_gen_3", "matmul.tdsl:26:29")}
expected_moves = {
    ("memcpy", "matmul.tdsl:12:3", "d2d"): (1, 256 * 256 * 4),
    ("prefetch", "matmul.tdsl:24:29", "d2h"): (2, 256 * 256 * 4 + 256 * 4),
    ("prefetch", "matmul.tdsl:26:29", "h2d"): (1, 256 * 256 * 4),
    ("prefetch", "matmul.tdsl:26:29", "d2h"): (1, 256 * 4),
}
assert len(moves) == len(expected_moves), "moves %r" % sorted(moves)
for key, (calls, size) in expected_moves.items():
    assert key in moves, "no %r in %r" % (key, sorted(moves))
    assert moves[key]["calls"] == calls and moves[key]["bytes"] == size, moves[key]
    assert abs(moves[key]["total_ms"] - 1.5 * calls) < 1e-9, moves[key]
assert len(rows) == len(expected), "%d kernel rows, expected %d" % (len(rows), len(expected))
assert set(rows) == expected, "rows %r, expected %r" % (sorted(rows), sorted(expected))
for key, k in rows.items():
    assert k["kind"] == "kernel", k
    assert k["calls"] == 1, k
    assert abs(k["total_ms"] - 1.5) < 1e-9, k
    assert abs(k["mean_us"] - 1500.0) < 1e-6, k
for key in [("matmul_index_gen", "matmul.tdsl:12:3"), ("tdsl_main_matmul", "matmul.tdsl:26:43")]:
    assert rows[key]["flops"] == 2 * 256 ** 3, rows[key]
    assert rows[key]["bytes"] > 0, rows[key]
print("GPU profile JSON ok: %d kernels, %d moves" % (len(rows), len(moves)))
