#!/usr/bin/env bash
# Builds TDSL (setting it up first if needed) and runs every test: the lit
# suites and the GoogleTest units. Ends with one "N passed, N failed" line.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${TDSL_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh" || exit 1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
lit=$(command -v lit-22 || echo /usr/lib/llvm-22/bin/lit)
"$lit" -sv "$build/test" "$build/test/unittests" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

count() { sed -nE "s/^ *$1 *: *([0-9]+).*/\1/p" "$log" | head -n1; }
passed=$(count Passed); failed=$(count Failed)
unsupported=$(( $(count Unsupported || true) + 0 )); skipped=$(( $(count Skipped || true) + 0 ))
unsupported=$(( unsupported + skipped ))
xfail=$(count 'Expectedly Failed'); xpass=$(count 'Unexpectedly Passed')
passed=$(( ${passed:-0} + ${xfail:-0} ))
failed=$(( ${failed:-0} + ${xpass:-0} ))
echo "${passed} passed, ${failed} failed, ${unsupported:-0} skipped"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  echo "lit exited with status $rc"
fi
exit "$rc"
