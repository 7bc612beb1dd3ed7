#!/usr/bin/env bash
# One script for a GPU machine: builds nax's CUDA tests and GPU benchmarks (Release, the
# architecture of the GPU found, else 90), runs the CUDA tests, runs the benchmarks
# (gpu_bench.cu) and the same cases in JAX when python3 imports jax with a GPU, and prints one
# table last. Budget: under 8 minutes on an H100/H200 (the build is most of it).
# Usage: bench/gpu/run.sh [--small] [--reps=N]      (env: BUILD_DIR, JOBS, CUDA_ARCH)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
ARGS=("$@")
BUILD_DIR=${BUILD_DIR:-build/gpu}
JOBS=${JOBS:-$(nproc)}
LOG_DIR="$BUILD_DIR/gpu-run"
export PATH="/usr/local/cuda/bin:$PATH"
start=$(date +%s)

if [ -z "${CUDA_ARCH:-}" ]; then
  CUDA_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  CUDA_ARCH=${CUDA_ARCH:-90}
fi
echo "== configure ($BUILD_DIR, sm_$CUDA_ARCH)"
mkdir -p "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNAX_ENABLE_CUDA=ON \
  -DNAX_BUILD_BENCH=ON -DNAX_BUILD_EXAMPLES=OFF -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" >/dev/null || exit 1
mkdir -p "$LOG_DIR"
echo "== build (test_cuda, bench_gpu_gpu_bench; -j$JOBS)"
if ! cmake --build "$BUILD_DIR" --target test_cuda bench_gpu_gpu_bench -j "$JOBS" >"$LOG_DIR/build.log" 2>&1; then
  tail -50 "$LOG_DIR/build.log"; echo "BUILD FAILED (log: $LOG_DIR/build.log)"; exit 1
fi
echo "   built in $(( $(date +%s) - start )) s"

echo "== CUDA tests"
tests_status="passed"
if ! timeout 300 "$BUILD_DIR/tests/cuda/test_cuda" 2>&1 | tee "$LOG_DIR/tests.log" | tail -25; then
  tests_status="FAILED"
fi
grep -q "Status: SUCCESS" "$LOG_DIR/tests.log" || tests_status="FAILED"

echo "== nax GPU benchmarks"
timeout 240 "$BUILD_DIR/bench/gpu/bench_gpu_gpu_bench" "${ARGS[@]}" 2>&1 | tee "$LOG_DIR/nax.log"

echo "== JAX on the GPU"
: >"$LOG_DIR/jax.log"
if python3 -c "import jax" 2>/dev/null; then
  timeout 180 python3 bench/gpu/jax_peers.py "${ARGS[@]}" 2>&1 | grep -v "^WARNING" | tee "$LOG_DIR/jax.log"
else
  echo "python3 cannot import jax: JAX column skipped"
fi

echo
echo "== nax CUDA backend on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" \
     "(CUDA tests: $tests_status; total $(( $(date +%s) - start )) s)"
awk '
  FILENAME == ARGV[1] { if ($1 == "JAX") jax[$2] = $3; next }
  $1 == "RESULT" {
    n++; name[n] = $2; val[n] = $3; unit[n] = $4; base[n] = $5; bval[n] = $6; target[n] = $7
  }
  END {
    printf "%-13s %-10s %10s %-12s %10s %8s %7s %10s %8s\n", "case", "unit", "nax", "baseline", "baseline", "ratio", "target", "JAX", "nax/JAX"
    for (i = 1; i <= n; i++) {
      ratio = (bval[i] > 0) ? sprintf("%.3f", val[i] / bval[i]) : "-"
      tgt = (target[i] > 0) ? sprintf(">=%.2f", target[i]) : "-"
      j = (name[i] in jax) ? sprintf("%.2f", jax[name[i]]) : "-"
      r = (name[i] in jax && jax[name[i]] > 0) ? sprintf("%.3f", val[i] / jax[name[i]]) : "-"
      b = (bval[i] > 0) ? sprintf("%.2f", bval[i]) : "-"
      printf "%-13s %-10s %10.2f %-12s %10s %8s %7s %10s %8s\n", name[i], unit[i], val[i], base[i], b, ratio, tgt, j, r
    }
    if (n == 0) print "(no benchmark results: see the log above)"
  }' "$LOG_DIR/jax.log" "$LOG_DIR/nax.log"
