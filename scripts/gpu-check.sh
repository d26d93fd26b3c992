#!/usr/bin/env bash
# gpu-check.sh - one prepared check of the CUDA back end on a real GPU.
#
# The machine with the GPU (an H200 with CUDA 13, nvcc and PyTorch) has no
# LLVM/MLIR, so it cannot run tdslc. Everything is compiled here first:
#
#   scripts/gpu-check.sh prepare OUTDIR
#
# builds, with the local tdslc (build/bin/tdslc, or $TDSLC):
#   - every examples/*.tdsl as a --target=cuda executable (cuda_<name>) and as
#     a CPU executable (cpu_<name>);
#   - the benchmarks bench/gpu/matmul4096.tdsl (4096 x 4096 f32 matmul) and
#     bench/gpu/saxpy64m.tdsl (z = a*x + y over 64M f32) as cuda executables;
#   - test/CUDA/Inputs/gpu_kernels.tdsl (every kernel form at awkward sizes)
#     with tiles of 16, 8 and 32, and its numpy checker;
#   - with scripts/gpu_cases.py (unless GPU_CHECK_CASES=0), every test
#     program that runs on the CPU, as a cuda executable with its CPU output,
#     and GPU_CHECK_FUZZ (150) random programs of the differential fuzzer
#     with their reference outputs, under OUTDIR/cases;
# copies libtdsl_runtime.so and libtbb.so.12 next to them (the executables'
# rpath points at this build tree, missing over there), the output comparer
# (test/CUDA/Inputs/compare_outputs.py) and writes OUTDIR/run.sh. An example
# that does not compile for CUDA is listed in OUTDIR/prepare.log and reported
# by run.sh as not built; prepare itself fails only if nothing was built.
#
# Then, on the GPU machine (no tdslc needed; python3 for the comparisons,
# PyTorch optional):
#
#   bash OUTDIR/run.sh [RESULTDIR]
#
# runs every example on the CPU and on the GPU and compares the printed
# numbers (integers exactly, others within rtol 1e-4), checks the kernel
# forms' results against numpy (when numpy is there), runs the benchmarks
# with --profile-json and checks their results exactly, runs the cases
# (gpu_cases.py check), runs the same two
# benchmarks in PyTorch (torch.matmul, fp32 without TF32, and y + 2 x, timed
# with torch.cuda.Event), and prints a table of GFLOP/s and GB/s with ratios.
# Logs, profiles and results.json go to RESULTDIR (default OUTDIR/results).
# Without a GPU it says so (the executables exit 1 with 'no CUDA GPU') and
# exits 2; without torch it skips the PyTorch column. Exit status: 0 all
# checks passed, 1 a check failed, 2 no GPU.
#
# With the device tool, from the repository root (build/ is git-ignored, so
# it must be carried):
#   scripts/gpu-check.sh prepare build/gpu-check
#   run(command="bash build/gpu-check/run.sh $OUT", carry=["build/gpu-check"])
set -euo pipefail

usage() {
  echo "usage: $0 prepare OUTDIR" >&2
  exit 2
}

[ "${1:-}" = prepare ] && [ -n "${2:-}" ] || usage
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$2
tdslc=${TDSLC:-$root/build/bin/tdslc}
runtime=$root/build/lib/libtdsl_runtime.so
[ -x "$tdslc" ] || { echo "gpu-check.sh: no tdslc at $tdslc (build it, or set TDSLC)" >&2; exit 1; }
[ -f "$runtime" ] || { echo "gpu-check.sh: no runtime at $runtime" >&2; exit 1; }
tbb=$(ldd "$runtime" | awk '/libtbb\.so\.12/ {print $3}')
[ -n "$tbb" ] || tbb=/lib/x86_64-linux-gnu/libtbb.so.12
[ -f "$tbb" ] || { echo "gpu-check.sh: no libtbb.so.12 (looked at $tbb)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/src"
log=$out/prepare.log
: > "$log"
built=0
# build OUT SRC TARGET [FLAGS...]: tdslc SRC into $out/OUT, logged; a failure
# is reported and run.sh says the program was not built.
build() {
  local name=$1 src=$2 target=$3
  shift 3
  if "$tdslc" --target="$target" "$@" "$src" -o "$out/$name" >> "$log" 2>&1; then
    echo "built $name" >> "$log"
    built=$((built + 1))
  else
    echo "FAILED to build $name (tdslc --target=$target $* ${src#$root/})" >> "$log"
    echo "gpu-check.sh: ${src#$root/} does not compile for $target (see $log)" >&2
  fi
}
examples=()
for f in "$root"/examples/*.tdsl; do
  name=$(basename "$f" .tdsl)
  examples+=("$name")
  cp "$f" "$out/src/"
  # A data file read at an absolute path (the digits examples read
  # scikit-learn's digits.csv.gz) is not on the GPU machine: it travels in
  # $out/data, and the program is built reading it from the current folder.
  src=$f
  for p in $(grep -o '"/[^"]*"' "$f" | tr -d '"' | sort -u); do
    [ -f "$p" ] || continue
    mkdir -p "$out/data"
    cp "$p" "$out/data/"
    src=$out/src/$name.tdsl
    sed -i "s#\"$p\"#\"$(basename "$p")\"#" "$src"
  done
  build "cpu_$name" "$src" cpu
  build "cuda_$name" "$src" cuda
done
for b in matmul4096 saxpy64m; do
  cp "$root/bench/gpu/$b.tdsl" "$out/src/"
  build "cuda_$b" "$root/bench/gpu/$b.tdsl" cuda
done
# The kernel forms at awkward sizes, checked against numpy over there, with
# tiles of 16 (default), 8 and 32.
cp "$root/test/CUDA/Inputs/gpu_kernels.tdsl" "$out/src/"
cp "$root/test/CUDA/Inputs/check_gpu_kernels.py" "$out/"
for t in 16 8 32; do
  build "cuda_gpu_kernels_t$t" "$root/test/CUDA/Inputs/gpu_kernels.tdsl" cuda --gpu-tile=$t
done
[ "$built" -gt 0 ] || { echo "gpu-check.sh: nothing was built" >&2; exit 1; }
# The profile rows of the timed lines ('where' is file:line:column).
mm_line=$(grep -n 'C\[i, j\] = sum(k) A\[i, k\] \* B\[k, j\]' "$root/bench/gpu/matmul4096.tdsl" | cut -d: -f1)
sx_line=$(grep -n 'z\[i\] = 2.0 \* x\[i\] + y\[i\]' "$root/bench/gpu/saxpy64m.tdsl" | cut -d: -f1)
# The repository's test programs (against their CPU output) and random
# programs of the differential fuzzer (against its reference interpreter).
if [ "${GPU_CHECK_CASES:-1}" = 1 ]; then
  /usr/bin/python3 "$root/scripts/gpu_cases.py" prepare "$out" "$tdslc" \
    --fuzz-count "${GPU_CHECK_FUZZ:-150}" >> "$log" 2>&1 \
    || echo "gpu-check.sh: gpu_cases.py prepare failed (see $log)" >&2
  cp "$root/scripts/gpu_cases.py" "$out/"
fi
cp "$runtime" "$out/"
cp -L "$tbb" "$out/libtbb.so.12"
cp "$root/test/CUDA/Inputs/compare_outputs.py" "$out/"
{
  echo "# Written by scripts/gpu-check.sh prepare on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "TDSL_COMMIT='$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo +dirty)'"
  echo "TDSLC_VERSION='$("$tdslc" --version 2>/dev/null | grep -m1 tdslc | sed 's/^ *//')'"
  echo "EXAMPLES='${examples[*]}'"
  echo "MATMUL_WHERE='matmul4096.tdsl:$mm_line:'"
  echo "SAXPY_WHERE='saxpy64m.tdsl:$sx_line:'"
} > "$out/config.sh"

cat > "$out/run.sh" <<'RUN_SH'
#!/usr/bin/env bash
# Written by scripts/gpu-check.sh prepare: runs the prepared CUDA check.
# usage: bash run.sh [RESULTDIR]      (see scripts/gpu-check.sh)
set -uo pipefail
D=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
R=${1:-$D/results}
mkdir -p "$R"
R=$(cd "$R" && pwd)
. "$D/config.sh"
export LD_LIBRARY_PATH="$D${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset TDSL_PROFILE TDSL_PROFILE_JSON TDSL_CUDA_LIBRARY
PY=$(command -v python3 || true)
T="timeout 120"
command -v timeout >/dev/null || T=
fail=0
nogpu=0
W=$(mktemp -d)
[ -d "$D/data" ] && cp "$D"/data/* "$W"/
trap 'rm -rf "$W"' EXIT
summary="$R/summary.txt"
: > "$summary"
say() { echo "$@" | tee -a "$summary"; }

say "== TDSL CUDA check: $TDSL_COMMIT ($TDSLC_VERSION), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/GPU: /' | tee -a "$summary"
else
  say "GPU: nvidia-smi not found"
fi
[ -n "$PY" ] || say "python3 not found: outputs are not compared"

# A GPU run that failed: the no-GPU message (exit 1) or a real failure.
gpu_failed() {  # name rc errfile
  if [ "$2" = 1 ] && grep -q 'no CUDA GPU' "$3"; then
    say "  $1: NO GPU: $(grep -m1 'no CUDA GPU' "$3")"
    nogpu=1
  else
    say "  $1: FAILED on the GPU (exit $2):"
    tail -n 15 "$3" | sed 's/^/    /' | tee -a "$summary"
    fail=1
  fi
}

say ""
say "== examples: CPU vs GPU"
for ex in $EXAMPLES; do
  if [ ! -x "$D/cpu_$ex" ] || [ ! -x "$D/cuda_$ex" ]; then
    say "  $ex: NOT BUILT (tdslc failed at prepare time, see prepare.log)"
    fail=1
    continue
  fi
  (cd "$W" && $T "$D/cpu_$ex" > "$R/$ex.cpu.out" 2> "$R/$ex.cpu.err"); rc=$?
  if [ $rc != 0 ]; then
    say "  $ex: FAILED on the CPU (exit $rc): $(tail -n 3 "$R/$ex.cpu.err")"
    fail=1
    continue
  fi
  (cd "$W" && $T "$D/cuda_$ex" --profile > "$R/$ex.gpu.out" 2> "$R/$ex.gpu.err"); rc=$?
  if [ $rc != 0 ]; then
    gpu_failed "$ex" $rc "$R/$ex.gpu.err"
    if [ "$nogpu" = 0 ]; then  # again, synchronizing after each launch
      (cd "$W" && TDSL_CUDA_SYNC=1 $T "$D/cuda_$ex" > /dev/null 2> "$R/$ex.gpu-sync.err")
      say "    with TDSL_CUDA_SYNC=1: $(tail -n 2 "$R/$ex.gpu-sync.err")"
    fi
    continue
  fi
  if [ -n "$PY" ]; then
    # An example may widen the comparison ('// gpu_check: --loose-after 1
    # --loose-rtol 0.05 (why)'): compare_outputs.py's options.
    opts=$(grep -m1 -o '^// gpu_check: --[^(]*' "$D/src/$ex.tdsl" | sed 's|^// gpu_check: ||')
    if "$PY" "$D/compare_outputs.py" "$R/$ex.cpu.out" "$R/$ex.gpu.out" $opts > "$R/$ex.compare" 2>&1; then
      say "  $ex: ok ($(tail -n 1 "$R/$ex.compare"))"
    else
      say "  $ex: MISMATCH"
      sed 's/^/    /' "$R/$ex.compare" | tee -a "$summary"
      fail=1
    fi
  else
    say "  $ex: ran on the GPU (not compared)"
  fi
done

say ""
say "== kernel forms (test/CUDA/Inputs/gpu_kernels.tdsl) vs numpy"
if [ -n "$PY" ] && "$PY" -c "import numpy" 2>/dev/null; then
  for t in 16 8 32; do
    k="$D/cuda_gpu_kernels_t$t"
    if [ ! -x "$k" ]; then
      say "  tile $t: NOT BUILT (see prepare.log)"
      fail=1
      continue
    fi
    mkdir -p "$W/k$t"
    "$PY" "$D/check_gpu_kernels.py" prepare "$W/k$t"
    (cd "$W/k$t" && $T "$k" > "$R/gpu_kernels_t$t.out" 2> "$R/gpu_kernels_t$t.err"); rc=$?
    if [ $rc != 0 ]; then
      gpu_failed "gpu_kernels (tile $t)" $rc "$R/gpu_kernels_t$t.err"
    elif "$PY" "$D/check_gpu_kernels.py" check "$W/k$t" > "$R/gpu_kernels_t$t.check" 2>&1; then
      say "  tile $t: ok ($(grep -c ': ok' "$R/gpu_kernels_t$t.check") results match numpy)"
    else
      say "  tile $t: MISMATCH"
      sed 's/^/    /' "$R/gpu_kernels_t$t.check" | tee -a "$summary"
      fail=1
    fi
  done
else
  say "  skipped: no numpy"
fi

say ""
say "== test programs (vs their CPU output) and fuzz programs (vs the reference)"
if [ -d "$D/cases" ] && [ -n "$PY" ] && "$PY" -c "import numpy" 2>/dev/null; then
  "$PY" "$D/gpu_cases.py" check "$D" > "$R/cases.txt" 2>&1 || fail=1
  tee -a "$summary" < "$R/cases.txt"
else
  say "  skipped: not prepared, or no numpy"
fi

say ""
say "== benchmarks"
N_MM=4096
N_SX=67108864
# saxpy64m reads x.npy and y.npy: multiples of 2^-12 in [0, 1), so
# z = 2 x + y is exact in f32 (written without numpy, which may be missing).
if [ -n "$PY" ] && [ -x "$D/cuda_saxpy64m" ]; then
  "$PY" - "$W" "$N_SX" <<'EOF'
import array, sys
w, n = sys.argv[1], int(sys.argv[2])
def save(name, pattern):
    data = array.array("f", pattern)
    assert data.itemsize == 4 and n % len(data) == 0
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
    hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
    with open("%s/%s" % (w, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode())
        f.write(data.tobytes() * (n // len(data)))
save("x.npy", [(i % 4096) / 4096.0 for i in range(4096)])
save("y.npy", [((7 * i + 3) % 4096) / 4096.0 for i in range(4096)])
EOF
fi

run_bench() {  # name
  local b=$1
  if [ ! -x "$D/cuda_$b" ]; then
    say "  $b: NOT BUILT (see prepare.log)"
    fail=1
    return 1
  fi
  (cd "$W" && $T "$D/cuda_$b" --profile --profile-json="$R/$b.profile.json" > "$R/$b.out" 2> "$R/$b.err"); local rc=$?
  if [ $rc != 0 ]; then
    gpu_failed "$b" $rc "$R/$b.err"
    return 1
  fi
  say "  $b: ran; profile in $R/$b.profile.json"
  return 0
}
mm_ok=0; sx_ok=0
run_bench matmul4096 && mm_ok=1
if [ -f "$W/x.npy" ] || [ -z "$PY" ]; then
  run_bench saxpy64m && sx_ok=1
else
  say "  saxpy64m: skipped (no inputs)"
fi

if [ -z "$PY" ]; then
  say "python3 missing: no result checks, no table"
  [ $nogpu = 1 ] && exit 2
  exit $fail
fi

"$PY" - "$R" "$mm_ok" "$sx_ok" "$MATMUL_WHERE" "$SAXPY_WHERE" "$N_MM" "$N_SX" "$nogpu" <<'EOF' | tee -a "$summary"
import json, re, struct, sys
R, mm_ok, sx_ok, mm_where, sx_where, n_mm, n_sx, nogpu = sys.argv[1:]
mm_ok, sx_ok, n_mm, n_sx, nogpu = int(mm_ok), int(sx_ok), int(n_mm), int(n_sx), int(nogpu)
bad = False
res = {"tdsl": {}, "torch": {}, "checks": {}}

def row(path, where):
    prof = json.load(open(path))
    rows = [k for k in prof["kernels"]
            if k["where"].startswith(where) and k.get("kind", "kernel") == "kernel"]
    return rows[0] if len(rows) == 1 else None

def nums(path, label):
    for line in open(path):
        if line.startswith(label):
            return [float(t) for t in line[len(label):].split()]
    return None

if mm_ok:
    # C[i, j] = sum_k ((i + 2k) % 7) * ((3k + j) % 5), exact in f32.
    ref = lambda i, j: sum(((i + 2 * k) % 7) * ((3 * k + j) % 5) for k in range(n_mm))
    got = nums(R + "/matmul4096.out", "C[0, 0], C[1, 2], C[4095, 4095]:")
    want = [ref(0, 0), ref(1, 2), ref(4095, 4095)]
    okv = got == want
    res["checks"]["matmul4096"] = okv
    print("  matmul4096 result: %s (C[0,0], C[1,2], C[4095,4095] = %s, expected %s)"
          % ("ok" if okv else "WRONG", got, want))
    bad |= not okv
    r = row(R + "/matmul4096.profile.json", mm_where)
    if r and r["calls"] >= 1 and r["total_ms"] > 0:
        ms = r["total_ms"] / r["calls"]
        res["tdsl"]["matmul"] = {"ms": ms, "gflops": 2.0 * n_mm ** 3 / (ms * 1e-3) / 1e9, "kernel": r["name"]}
    else:
        print("  matmul4096: no profile row at %s" % mm_where); bad = True
if sx_ok:
    f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
    x = lambda i: (i % 4096) / 4096.0
    y = lambda i: ((7 * i + 3) % 4096) / 4096.0
    got = nums(R + "/saxpy64m.out", "z[0], z[1], z[n-1]:")
    want = [f32(2 * x(i) + y(i)) for i in (0, 1, n_sx - 1)]
    # print() shows 6 significant digits: compare within 1e-5 relative.
    okv = (got is not None and len(got) == 3 and nums(R + "/saxpy64m.out", "n:") == [n_sx]
           and all(abs(g - w) <= 1e-5 * abs(w) + 1e-7 for g, w in zip(got, want)))
    res["checks"]["saxpy64m"] = okv
    print("  saxpy64m result: %s (z[0], z[1], z[n-1] = %s, expected %s)" % ("ok" if okv else "WRONG", got, want))
    bad |= not okv
    r = row(R + "/saxpy64m.profile.json", sx_where)
    if r and r["calls"] >= 1 and r["total_ms"] > 0:
        ms = r["total_ms"] / r["calls"]
        res["tdsl"]["saxpy"] = {"ms": ms, "gbps": 12.0 * n_sx / (ms * 1e-3) / 1e9, "kernel": r["name"]}
    else:
        print("  saxpy64m: no profile row at %s" % sx_where); bad = True

# PyTorch, in this same run.
try:
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
    dev = torch.device("cuda")
    def timed(fn, iters):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / iters
    a = torch.randn(n_mm, n_mm, device=dev)
    b = torch.randn(n_mm, n_mm, device=dev)
    torch.backends.cuda.matmul.allow_tf32 = False
    ms = timed(lambda: torch.matmul(a, b), 20)
    res["torch"]["matmul"] = {"ms": ms, "gflops": 2.0 * n_mm ** 3 / (ms * 1e-3) / 1e9}
    torch.backends.cuda.matmul.allow_tf32 = True
    ms = timed(lambda: torch.matmul(a, b), 20)
    res["torch"]["matmul_tf32"] = {"ms": ms, "gflops": 2.0 * n_mm ** 3 / (ms * 1e-3) / 1e9}
    torch.backends.cuda.matmul.allow_tf32 = False
    del a, b
    x = torch.rand(n_sx, device=dev)
    y = torch.rand(n_sx, device=dev)
    z = torch.empty_like(x)
    ms = timed(lambda: torch.add(y, x, alpha=2.0, out=z), 20)
    res["torch"]["saxpy"] = {"ms": ms, "gbps": 12.0 * n_sx / (ms * 1e-3) / 1e9}
    res["torch"]["version"] = torch.__version__
    print("  torch %s on %s" % (torch.__version__, torch.cuda.get_device_name(0)))
except Exception as e:  # ImportError included
    print("  torch: skipped (%s: %s)" % (type(e).__name__, e))

def fmt(d, key):
    return ("%9.3f %10.1f" % (d["ms"], d[key])) if d else "%9s %10s" % ("-", "-")
print("")
print("  %-30s %9s %10s %9s %10s %7s" % ("benchmark", "TDSL ms", "TDSL", "torch ms", "torch", "ratio"))
for name, key, unit, label in (("matmul", "gflops", "GFLOP/s", "matmul 4096^3 f32 (no TF32)"),
                               ("saxpy", "gbps", "GB/s", "saxpy 64M f32 (12 B/elem)")):
    t, p = res["tdsl"].get(name), res["torch"].get(name)
    ratio = "%7.3f" % (t[key] / p[key]) if t and p else "%7s" % "-"
    print("  %-30s %s %s %s   %s, ratio TDSL/torch" % (label, fmt(t, key), fmt(p, key), ratio, unit))
if "matmul_tf32" in res["torch"]:
    p = res["torch"]["matmul_tf32"]
    print("  %-30s %9s %10s %s   GFLOP/s (reference only)" % ("torch matmul with TF32", "", "", fmt(p, "gflops")))
print("  (TDSL times: the timed kernel's CUDA events, one call after a warm-up kernel;")
print("   its buffers are managed memory, placed on the device before it, so no page")
print("   faults; the moves to and from the host are 'prefetch' rows of the profile)")
json.dump(res, open(R + "/results.json", "w"), indent=1)
sys.exit(1 if bad else 0)
EOF
[ $? = 0 ] || fail=1

say ""
if [ $nogpu = 1 ]; then
  say "RESULT: NO GPU (the CUDA executables exit 1 with 'no CUDA GPU'); results in $R"
  exit 2
fi
if [ $fail = 0 ]; then say "RESULT: PASS; results in $R"; else say "RESULT: FAIL; see $R"; fi
exit $fail
RUN_SH
chmod +x "$out/run.sh"
echo "prepared $out ($(du -sh "$out" | cut -f1)); run: bash $out/run.sh [RESULTDIR]"
