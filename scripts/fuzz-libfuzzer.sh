#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer: builds the fuzz targets of
# tools/tdsl-fuzz/ (clang-22, -fsanitize=fuzzer,address,undefined) in
# build-fuzz/ and runs them, each for part of the time.
#
#   scripts/fuzz-libfuzzer.sh [--update-corpus] [SECONDS] [frontend|dialect]
#
# SECONDS (default 600) is split evenly between tdsl-frontend-fuzzer
# (lexer, parser, Sema, MLIRGen + verify) and tdsl-dialect-fuzzer (tdsl
# dialect parser, verifiers, printers), or all goes to the one named. One
# process at a time (the machine has two cores). New inputs are kept in
# build-fuzz/fuzz/corpus-<target>/, crashes in build-fuzz/fuzz/crashes/
# (a crashed run restarts until the time is up). --update-corpus then merges
# them (-merge=1, by edges) into the minimised corpus under test/Fuzz/Inputs/,
# which test/Fuzz/corpus-replay.test replays in the normal test suite.
#
# A crash: reproduce with build-fuzz/bin/tdsl-<target>-fuzzer FILE, shrink with
# -minimize_crash=1 -runs=10000 -exact_artifact_path=OUT FILE, and set
# TDSL_FUZZ_VERBOSE=1 to see the diagnostics. See docs/testing.md.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${TDSL_FUZZ_BUILD_DIR:-$root/build-fuzz}
update=0
if [ "${1:-}" = "--update-corpus" ]; then update=1; shift; fi
seconds=${1:-600}
targets=(frontend dialect)
[ -n "${2:-}" ] && targets=("$2")
jobs=$(( $(nproc) < 2 ? 1 : 2 ))

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DTDSL_FUZZ=ON || exit 1
fi
cmake --build "$build" --target tdsl-frontend-fuzzer tdsl-dialect-fuzzer \
  -- -j"$jobs" || exit 1

fuzz=$build/fuzz
mkdir -p "$fuzz/crashes"
touch "$fuzz/.started"

# Seeds: every .tdsl of the repository; for the dialect, every .mlir test
# split at `// -----`, and the tdsl IR of those programs when a tdslc is built.
seed_frontend() {
  local out=$fuzz/seeds-frontend
  rm -rf "$out" && mkdir -p "$out"
  (cd "$root" && find . \( -path './build*' -o -path ./.git \) -prune -o \
     -name '*.tdsl' -print) | while read -r f; do
    cp "$root/$f" "$out/$(echo "${f#./}" | tr / _)"
  done
}
seed_dialect() {
  local out=$fuzz/seeds-dialect
  rm -rf "$out" && mkdir -p "$out"
  (cd "$root" && find test -name '*.mlir') | while read -r f; do
    awk -v out="$out/$(echo "$f" | tr / _)" \
      '/^\/\/ -----/ { n++; next } { print > (out "-" n+0) }' "$root/$f"
  done
  local tdslc=$root/build/bin/tdslc
  [ -x "$tdslc" ] || return 0
  for f in "$fuzz"/seeds-frontend/*; do
    timeout 20 "$tdslc" "$f" --emit=tdsl -o "$out/emit-$(basename "$f").mlir" \
      2>/dev/null || rm -f "$out/emit-$(basename "$f").mlir"
  done
}
seed_frontend
[[ " ${targets[*]} " == *" dialect "* ]] && seed_dialect

options=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -only_ascii=1
         -print_final_stats=1)
share=$(( seconds / ${#targets[@]} ))
status=0
for t in "${targets[@]}"; do
  bin=$build/bin/tdsl-$t-fuzzer
  dict=$root/tools/tdsl-fuzz/tdsl.dict
  [ "$t" = dialect ] && dict=$root/tools/tdsl-fuzz/tdsl-mlir.dict
  corpus=$root/test/Fuzz/Inputs/corpus-$t
  work=$fuzz/corpus-$t
  mkdir -p "$work" "$corpus"
  log=$fuzz/$t.log
  : > "$log"
  echo "== tdsl-$t-fuzzer for ${share}s (log: $log)"
  end=$(( $(date +%s) + share ))
  crashes=0
  while left=$(( end - $(date +%s) )); [ "$left" -gt 5 ] && [ "$crashes" -lt 20 ]; do
    "$bin" "${options[@]}" -dict="$dict" -max_total_time="$left" \
      -artifact_prefix="$fuzz/crashes/$t-" "$work" "$corpus" \
      "$fuzz/seeds-$t" >> "$log" 2>&1 && break
    crashes=$(( crashes + 1 ))
    echo "   run $crashes ended with a finding: $(grep -E '^artifact_prefix|Test unit written' "$log" | tail -n1)"
  done
  grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb' "$log" | tail -n4
  [ "$crashes" -gt 0 ] && status=1
  if [ "$update" = 1 ]; then
    merged=$fuzz/merged-$t
    rm -rf "$merged" && mkdir -p "$merged"
    # Edges only (not hit counts): every edge covered, a tenth of the files.
    "$bin" "${options[@]}" -use_counters=0 -merge=1 "$merged" "$corpus" "$work" \
      > "$fuzz/$t-merge.log" 2>&1 || { echo "merge failed: $fuzz/$t-merge.log"; exit 1; }
    rm -rf "$corpus" && mv "$merged" "$corpus"
    echo "   corpus: $(ls "$corpus" | wc -l) files, $(cat "$corpus"/* | wc -c) bytes in ${corpus#$root/}"
  fi
done
find "$fuzz/crashes" -type f -newer "$fuzz/.started" | sed 's/^/   finding: /'
exit $status
