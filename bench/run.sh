#!/usr/bin/env bash
# Runs TDSL's benchmark suite (bench/suite.py): every TDSL program side by
# side with its anchors (oneDNN, OpenBLAS, PyTorch, numpy, hand-written
# C++, PolyBench/C), alternating, with a warm-up round and repeats; prints
# medians, spread and ratios, and writes results.json and ratios.png to
# build/bench. Not a test: it asserts no timing (it fails when a result is
# wrong). See docs/benchmarks.md.
#
# usage: bench/run.sh [--quick] [--only REGEX] [--threads 1,2] [--rounds N]
#                     [--out DIR] [--build DIR] [--polybench-dataset NAME]
#                     [--polybench-src DIR]
#        bench/run.sh BUILD_DIR [options]   (the build folder, as before)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ $# -gt 0 && $1 != -* && -d $1 ]]; then
  build=$1
  shift
  set -- --build "$build" "$@"
fi
exec /usr/bin/python3 "$here/suite.py" "$@"
