#!/usr/bin/env bash
# Benchmarks TDSL's CPU back end against its anchors in one run and reports
# ratios: matmul 1024^3 f32 (TDSL at 1 and 2 threads, numpy/OpenBLAS at 1
# and 2 threads) and saxpy over 16M f32 (TDSL vs numpy). Not a test: it
# asserts nothing. Usage: bench/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$build/bin/tdslc" "$here/matmul.tdsl" -o "$tmp/matmul"
"$build/bin/tdslc" "$here/saxpy.tdsl" -o "$tmp/saxpy"
for t in 1 2; do
  "$tmp/matmul" --threads=$t --profile-json="$tmp/matmul-$t.json" >/dev/null
  "$tmp/saxpy" --threads=$t --profile-json="$tmp/saxpy-$t.json" >/dev/null
done

# OpenBLAS picks a generic kernel on this virtual CPU unless told the core.
export OPENBLAS_CORETYPE=SkylakeX
/usr/bin/python3 - "$tmp" <<'PY'
import json, os, subprocess, sys, time
tmp = sys.argv[1]

def kernel(path, prefix):
    ks = json.load(open(path))["kernels"]
    k = next(k for k in ks if k["name"].startswith(prefix))
    return k["total_ms"] / k["calls"] / 1e3

def numpy_time(threads, code):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run(["/usr/bin/python3", "-c", code], env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout)

mm = """
import numpy as np, time
a = np.random.rand(1024, 1024).astype(np.float32)
b = np.random.rand(1024, 1024).astype(np.float32)
a @ b
t = []
for _ in range(5):
    s = time.perf_counter(); a @ b; t.append(time.perf_counter() - s)
print(min(t))
"""
ax = """
import numpy as np, time
x = np.random.rand(16777216).astype(np.float32)
y = np.random.rand(16777216).astype(np.float32)
t = []
for _ in range(5):
    s = time.perf_counter(); z = 2.0 * x + y; t.append(time.perf_counter() - s)
print(min(t))
"""
flops = 2 * 1024 ** 3
rows = []
for t in (1, 2):
    tdsl = kernel(f"{tmp}/matmul-{t}.json", "matmul")
    blas = numpy_time(t, mm)
    rows.append((f"matmul 1024 f32, {t} thread(s)", flops / tdsl / 1e9,
                 flops / blas / 1e9, "GFLOP/s"))
nbytes = 3 * 4 * 16777216
for t in (1, 2):
    tdsl = kernel(f"{tmp}/saxpy-{t}.json", "saxpy")
    npy = numpy_time(t, ax)
    rows.append((f"saxpy 16M f32, {t} thread(s)", nbytes / tdsl / 1e9,
                 nbytes / npy / 1e9, "GB/s"))
print(f"{'benchmark':34} {'TDSL':>9} {'anchor':>9} {'TDSL/anchor':>12}")
for name, a, b, unit in rows:
    print(f"{name:34} {a:9.1f} {b:9.1f} {a / b:12.2f}  {unit} (anchor: numpy)")
m1 = kernel(f"{tmp}/matmul-1.json", "matmul")
m2 = kernel(f"{tmp}/matmul-2.json", "matmul")
print(f"TDSL matmul speedup, 2 threads over 1: {m1 / m2:.2f}x")
PY
