#!/usr/bin/env bash
# Installs, with apt-get, the Debian/Ubuntu packages nax's build, tests, examples and benchmarks
# need, when any of them is missing (nothing is done when all are there). Used by the README's
# two commands and by .ci/run. --always: apt-get update and install them all whatever is there
# (CI on a fresh machine). Runs apt-get through sudo unless already root. Also clang-16 and
# libomp-16-dev, for the test preset, where the distribution has them (below).
set -euo pipefail

packages=(cmake ninja-build g++
          libboost-dev doctest-dev libopenblas-dev libbenchmark-dev
          libopenmpi-dev openmpi-bin
          libeigen3-dev libxtensor-dev python3-numpy time)

# The test preset compiles with clang++-16 where it is installed, about a third faster than g++
# (cmake/test_toolchain.cmake). Installed where the distribution has it (Debian 12); elsewhere
# (Ubuntu 22.04) the tests are built with g++.
clang_packages=(clang-16 libomp-16-dev)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
clang_available() {
  [ "$(LC_ALL=C apt-cache policy "${clang_packages[@]}" 2>/dev/null | grep -c "Candidate: [0-9]")" = 2 ]
}

missing=()
for p in "${packages[@]}"; do
  if [ "${1:-}" = "--always" ] || ! installed "$p"; then missing+=("$p"); fi
done
want_clang=no
for p in "${clang_packages[@]}"; do
  if [ "${1:-}" = "--always" ] || ! installed "$p"; then want_clang=yes; fi
done
if [ "$want_clang" = yes ] && [ ${#missing[@]} -eq 0 ] && ! clang_available; then
  want_clang=no  # not in the package lists: no apt-get update for it alone
fi
if [ ${#missing[@]} -eq 0 ] && [ "$want_clang" = no ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update
if [ "$want_clang" = yes ] && clang_available; then missing+=("${clang_packages[@]}"); fi
echo "nax: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
