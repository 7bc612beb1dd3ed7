#!/usr/bin/env bash
# Installs, with apt-get, the Debian/Ubuntu packages nax's build, tests, examples and benchmarks
# need, when any of them is missing (nothing is done when all are there). Used by the README's
# two commands and by .ci/run. --always: apt-get update and install them all whatever is there
# (CI on a fresh machine). Runs apt-get through sudo unless already root.
set -euo pipefail

packages=(cmake ninja-build g++
          libboost-dev doctest-dev libopenblas-dev libbenchmark-dev
          libopenmpi-dev openmpi-bin
          libeigen3-dev libxtensor-dev python3-numpy time)

missing=()
for p in "${packages[@]}"; do
  if [ "${1:-}" = "--always" ]; then missing+=("$p"); continue; fi
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "nax: installing ${missing[*]}"
$sudo apt-get update
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
