#!/usr/bin/env bash
# Builds, on a machine without a GPU (nvcc is enough), what bench/gpu/run.sh --prebuilt runs on
# a GPU machine, so that the GPU's minutes go to running, not to nvcc: test_cuda, the GPU
# benchmark (bench_gpu_gpu_bench) and the --cuda examples (<name>_cuda, examples/CMakeLists.txt),
# a Release build for one architecture (sm_90: H100, H200), stripped, in one folder of at most
# 64 MiB with a MANIFEST.txt (commit, compiler, flags, sizes, the shared libraries each binary
# needs). The conformance data are not copied: run.sh points test_cuda at the source tree it
# runs in (NAX_TEST_SOURCE_DIR), which travels beside the folder.
#
# Usage: bench/gpu/prepare.sh [DIR]           (default DIR: build/gpu-prebuilt)
# Env: BUILD_DIR (default build/gpu-prepare), JOBS (default 1), CUDA_ARCH (default 90-real:
#      machine code for sm_90 only, no PTX), OPT (host optimisation, default -O2).
# Then, on the GPU machine, from the source tree's root: bench/gpu/run.sh --prebuilt DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
DIR=${1:-build/gpu-prebuilt}
BUILD_DIR=${BUILD_DIR:-build/gpu-prepare}
JOBS=${JOBS:-1}
CUDA_ARCH=${CUDA_ARCH:-90-real}
OPT=${OPT:--O2}
LIMIT=$(( 64 * 1024 * 1024 ))
export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "prepare.sh: nvcc not found (PATH, /usr/local/cuda/bin)"; exit 1; }
start=$(date +%s)

mkdir -p "$BUILD_DIR"
echo "== configure $BUILD_DIR (Release, $OPT, CUDA architectures $CUDA_ARCH)"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="$OPT -DNDEBUG" -DCMAKE_CUDA_FLAGS_RELEASE="$OPT -DNDEBUG" \
  -DNAX_ENABLE_CUDA=ON -DNAX_BUILD_TESTS=ON -DNAX_BUILD_BENCH=ON -DNAX_BUILD_EXAMPLES=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" >"$BUILD_DIR/prepare-configure.log" 2>&1 ||
  { tail -30 "$BUILD_DIR/prepare-configure.log"; echo "CONFIGURE FAILED"; exit 1; }

# The --cuda examples: examples/<name>.cpp that include <nax/cuda.hpp> are also the target
# <name>_cuda (examples/CMakeLists.txt).
examples=$(grep -l '#include <nax/cuda.hpp>' examples/*.cpp | sed 's|.*/||; s|\.cpp$|_cuda|' | sort)
targets="test_cuda bench_gpu_gpu_bench $examples"
all_targets=$(ninja -C "$BUILD_DIR" -t targets all)
for t in $targets; do
  grep -q "^$t: phony" <<<"$all_targets" || { echo "no target $t (are nvcc and NCCL found? $BUILD_DIR/prepare-configure.log)"; exit 1; }
done
echo "== build $(tr '\n' ' ' <<<"$targets")(-j$JOBS; minutes per .cu file at -j1)"
# shellcheck disable=SC2086
cmake --build "$BUILD_DIR" --target $targets -j "$JOBS"
echo "   built in $(( $(date +%s) - start )) s"

echo "== collect into $DIR"
rm -rf "$DIR"
mkdir -p "$DIR"
cp "$BUILD_DIR/tests/cuda/test_cuda" "$BUILD_DIR/bench/gpu/bench_gpu_gpu_bench" "$DIR/"
for e in $examples; do cp "$BUILD_DIR/examples/$e" "$DIR/"; done
for f in "$DIR"/*; do
  strip --strip-all "$f"
  sections=$(readelf -S "$f")  # (not piped into grep -q: with pipefail, readelf's SIGPIPE fails the test)
  grep -q '\.nv_fatbin' <<<"$sections" || { echo "$f lost its device code (.nv_fatbin) when stripped"; exit 1; }
done

bytes=$(du -sb "$DIR" | cut -f1)
{
  # Uncommitted changes that reach the binaries (the scripts and docs do not).
  echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- include tests examples cmake CMakeLists.txt bench \
    ':(exclude,glob)bench/**/*.sh' ':(exclude,glob)bench/**/*.py' ':(exclude,glob)bench/**/*.md' || echo ' + uncommitted changes')"
  echo "built: $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -m), $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "nvcc: $(nvcc --version | sed -n 's/^Cuda compilation tools, //p'); host compiler: $(c++ --version | head -1)"
  echo "flags: Release, host $OPT -DNDEBUG, CUDA architectures $CUDA_ARCH, stripped"
  echo "size: $bytes bytes ($(( bytes / 1024 / 1024 )) MiB; limit 64 MiB)"
  echo "run: bench/gpu/run.sh --prebuilt $DIR   (from the source tree's root; the tree supplies tests/conformance/data)"
  echo
  echo "== sizes"
  (cd "$DIR" && ls -l -- *_cuda test_cuda bench_gpu_gpu_bench 2>/dev/null | awk '{ printf "%12d  %s\n", $5, $NF }' | sort -u)
  echo
  echo "== shared libraries (ldd, here; run.sh looks for missing ones in /usr/local/cuda and pip's nvidia wheels)"
  for f in "$DIR"/*; do
    [ -x "$f" ] || continue
    echo "$(basename "$f"):"
    ldd "$f" | sed 's/ (0x[0-9a-f]*)//; s/^/  /'
  done
  echo
  echo "== newest symbol versions needed (the GPU machine's libc and libstdc++ must have them)"
  for f in "$DIR"/*; do
    [ -x "$f" ] || continue
    echo "$(basename "$f"): $(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)" \
         "$(objdump -T "$f" | grep -o 'GLIBCXX_[0-9.]*' | sort -Vu | tail -1)" \
         "$(objdump -T "$f" | grep -o 'CXXABI_[0-9.]*' | sort -Vu | tail -1)"
  done
} >"$DIR/MANIFEST.txt"
cat "$DIR/MANIFEST.txt"
if [ "$bytes" -gt "$LIMIT" ]; then
  echo "TOO BIG: $bytes bytes > 64 MiB (the sizes above say which binary; try OPT=-Os, or CUDA_ARCH=90-real)"
  exit 1
fi
echo "== ready: $DIR ($(( bytes / 1024 / 1024 )) MiB) in $(( $(date +%s) - start )) s"
