#!/usr/bin/env bash
# Builds TDSL with AddressSanitizer and UndefinedBehaviorSanitizer on our own
# code (Debian's libLLVM/libMLIR stay uninstrumented) in build-asan/, with
# clang-22, and runs every test against that build: the lit suites and the
# GoogleTest units, executables linked by `tdslc -o` included. Ends with the
# same "N passed, N failed, N skipped" line as scripts/test.sh. Once built,
# the tests take 3-4 minutes on two cores; not part of CI.
#
#   scripts/sanitize.sh                      # address,undefined
#   TDSL_SANITIZE=address scripts/sanitize.sh
#
# The sanitizer options (ASAN_OPTIONS, LSAN_OPTIONS with test/lsan.supp,
# UBSAN_OPTIONS) come from test/lit.sanitizers.py; see docs/testing.md.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${TDSL_ASAN_BUILD_DIR:-$root/build-asan}
sanitize=${TDSL_SANITIZE:-address,undefined}

configured=$(sed -n 's/^TDSL_SANITIZE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ ! -f "$build/build.ninja" ] || [ "$configured" != "$sanitize" ]; then
  echo "== Configuring $build with -fsanitize=$sanitize"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DTDSL_SANITIZE="$sanitize" || exit 1
fi
# test.sh installs what is missing, builds $TDSL_BUILD_DIR and runs its tests.
TDSL_BUILD_DIR=$build exec "$root/scripts/test.sh"
