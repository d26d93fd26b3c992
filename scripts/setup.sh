#!/usr/bin/env bash
# Sets up TDSL on Debian 12 from nothing: installs the toolchain with apt-get
# (skipped when already installed), then configures and builds with Ninja.
# Safe to run again; a second run only rebuilds what changed.
# With --bench it also installs what bench/run.sh's anchors need (oneDNN,
# OpenBLAS's headers, matplotlib for the chart).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${TDSL_BUILD_DIR:-$root/build}

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
          libclang-rt-22-dev libtbb-dev libgtest-dev ninja-build ccache cmake
          python3-numpy libopenblas0-pthread tmux python3-sklearn python3-torch zlib1g
          libopenmpi-dev openmpi-bin)
if [ "${1:-}" = "--bench" ]; then
  packages+=(libdnnl-dev libopenblas-dev python3-matplotlib)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "== Installing: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

if [ ! -f "$build/build.ninja" ]; then
  echo "== Configuring $build"
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi

echo "== Building"
cmake --build "$build" -- -j"$(nproc)"
