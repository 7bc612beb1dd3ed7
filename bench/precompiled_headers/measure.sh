#!/usr/bin/env bash
# Compile time with and without nax_precompile_headers (bench/README.md, "Precompiled headers").
# usage: bench/precompiled_headers/measure.sh [compiler] [flags]   (defaults: c++ -O0)
# Builds bench/precompiled_headers/ in a scratch folder, one compile at a time, and prints each
# step's seconds from Ninja's log: the precompiled header itself, then each source without and
# with it.
set -euo pipefail
compiler="${1:-c++}"
flags="${2:--O0}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
CXX="$compiler" cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=$flags" > /dev/null
ninja -C "$build" -j1 > /dev/null
echo "compiler: $("$compiler" --version | head -1), flags: $flags"
awk 'NR > 1 && ($4 ~ /\.o$/ || $4 ~ /cmake_pch/) {printf "%6.1f s  %s\n", ($2 - $1) / 1000, $4}' "$build/.ninja_log" |
  sed -E 's#CMakeFiles/##; s#\.dir/.*/examples/#: #; s#\.dir/#: #' | sort -k3
