#!/usr/bin/env bash
# One script for a GPU machine. In order, within 8 minutes (TIME_BUDGET seconds, default 470):
#   1. compute-sanitizer memcheck, racecheck and synccheck over test_cuda (when it is installed;
#      each bounded by a timeout and a doctest filter: see SANITIZE_* below),
#   2. the CUDA tests (test_cuda without the conformance cases),
#   3. the JAX conformance cases on the device (test_cuda's "cuda conformance" cases; their data
#      are tests/conformance/data of this source tree, found through NAX_TEST_SOURCE_DIR),
#   4. the GPU benchmarks (gpu_bench.cu) and the same cases in JAX, when python3 imports jax
#      with a GPU,
#   5. the --cuda examples (<name>_cuda --cuda),
# then prints one table (also written to $LOG_DIR/table.md) and exits 0 when every step that
# ran passed. Without a GPU it says so, runs the tests and examples (which report that they
# skip) to show the binaries load, and skips the sanitizers and benchmarks.
#
# Usage: bench/gpu/run.sh [--prebuilt DIR] [--small] [--reps=N]
#   --prebuilt DIR  run the binaries bench/gpu/prepare.sh put in DIR (built on a machine
#                   without a GPU) instead of building here; DIR relative to the source tree.
#   without it      configure and build build/gpu here (Release, the GPU's architecture, else 90).
#   --small, --reps=N  passed to the benchmarks (tiny sizes; repetitions).
# Env: LOG_DIR (default build/gpu-run), TIME_BUDGET, BUILD_DIR, JOBS, CUDA_ARCH (build mode).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
PREBUILT=""
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --prebuilt) PREBUILT=${2:?--prebuilt needs a folder}; shift 2 ;;
    --prebuilt=*) PREBUILT=${1#--prebuilt=}; shift ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
export PATH="/usr/local/cuda/bin:$PATH"
export NAX_TEST_SOURCE_DIR="$ROOT/tests"  # test_conformance_*.cu read their data from here
start=$(date +%s)
deadline=$(( start + ${TIME_BUDGET:-470} ))
LOG_DIR=${LOG_DIR:-build/gpu-run}
mkdir -p "$LOG_DIR" || exit 1
ROWS="$LOG_DIR/rows.txt"
: >"$ROWS"
failed=0
row() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$ROWS"; }  # step, result, seconds, detail

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
if [ -n "$gpu" ]; then
  echo "== GPU: $gpu"
else
  echo "== NO GPU FOUND on this machine (nvidia-smi lists none): the CUDA tests and examples"
  echo "   will report that they skip; the sanitizers and benchmarks are skipped."
fi

# ---- the binaries: prebuilt, or built here ----
if [ -n "$PREBUILT" ]; then
  case "$PREBUILT" in /*) BIN=$PREBUILT ;; *) BIN="$ROOT/$PREBUILT" ;; esac
  if [ ! -x "$BIN/test_cuda" ]; then
    echo "no test_cuda in $BIN: run bench/gpu/prepare.sh first (on any machine with nvcc)"; exit 1
  fi
  echo "== prebuilt binaries in $BIN"
  [ -f "$BIN/MANIFEST.txt" ] && sed -n '1,6p' "$BIN/MANIFEST.txt" | sed 's/^/   /'
  TEST="$BIN/test_cuda"
  BENCH="$BIN/bench_gpu_gpu_bench"
  EXAMPLES=("$BIN"/*_cuda)
  row build prebuilt 0 "$(sed -n 's/^commit: //p' "$BIN/MANIFEST.txt" 2>/dev/null | head -1)"
else
  BUILD_DIR=${BUILD_DIR:-build/gpu}
  JOBS=${JOBS:-$(nproc)}
  if [ -z "${CUDA_ARCH:-}" ]; then
    CUDA_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
    CUDA_ARCH=${CUDA_ARCH:-90}
  fi
  echo "== configure and build ($BUILD_DIR, sm_$CUDA_ARCH, -j$JOBS)"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNAX_ENABLE_CUDA=ON -DNAX_BUILD_TESTS=ON \
    -DNAX_BUILD_BENCH=ON -DNAX_BUILD_EXAMPLES=ON -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" >"$LOG_DIR/configure.log" 2>&1 ||
    { tail -30 "$LOG_DIR/configure.log"; echo "CONFIGURE FAILED"; exit 1; }
  examples=$(grep -l '#include <nax/cuda.hpp>' examples/*.cpp | sed 's|.*/||; s|\.cpp$|_cuda|' | sort)
  # shellcheck disable=SC2086
  if ! cmake --build "$BUILD_DIR" --target test_cuda bench_gpu_gpu_bench $examples -j "$JOBS" >"$LOG_DIR/build.log" 2>&1; then
    tail -50 "$LOG_DIR/build.log"; echo "BUILD FAILED (log: $LOG_DIR/build.log)"; exit 1
  fi
  TEST="$BUILD_DIR/tests/cuda/test_cuda"
  BENCH="$BUILD_DIR/bench/gpu/bench_gpu_gpu_bench"
  EXAMPLES=()
  for e in $examples; do EXAMPLES+=("$BUILD_DIR/examples/$e"); done
  row build "built here" $(( $(date +%s) - start )) "sm_$CUDA_ARCH, $BUILD_DIR"
  deadline=$(( $(date +%s) + ${TIME_BUDGET:-470} ))  # the budget is for the runs
fi

# ---- shared libraries: what the loader cannot find, looked for where CUDA and NCCL live ----
missing() { ldd "$@" 2>/dev/null | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p' | sort -u; }
libs=$(missing "$TEST" "$BENCH" "${EXAMPLES[@]}")
if [ -n "$libs" ]; then
  dirs=("${BIN:-/nonexistent}/lib" /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib)
  site=$(python3 -c "import site; print(' '.join(site.getsitepackages()))" 2>/dev/null)
  for s in $site; do for d in "$s"/nvidia/*/lib; do [ -d "$d" ] && dirs+=("$d"); done; done
  for lib in $libs; do
    for d in "${dirs[@]}"; do
      if [ -e "$d/$lib" ]; then export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; echo "   $lib: from $d"; break; fi
    done
  done
  still=$(missing "$TEST" "$BENCH" "${EXAMPLES[@]}")
  if [ -n "$still" ]; then
    still=$(tr '\n' ' ' <<<"$still")
    echo "== MISSING SHARED LIBRARIES: $still"; row libraries MISSING 0 "$still"; failed=1
  fi
fi
ldd "$TEST" >"$LOG_DIR/ldd.txt" 2>&1

left() { echo $(( deadline - $(date +%s) )); }
# step NAME BUDGET RESERVE LOG cmd...: runs cmd with a timeout of min(BUDGET, time left - RESERVE)
# (RESERVE: seconds kept for the steps after it); sets rc and secs.
step() {
  local name=$1 budget=$2 reserve=$3 log=$4; shift 4
  local t=$(( $(left) - reserve ))
  [ "$t" -gt "$budget" ] && t=$budget
  if [ "$t" -lt 10 ]; then rc=125; secs=0; echo "== $name: SKIPPED (out of time)"; return; fi
  echo "== $name (at most ${t} s)"
  local s0; s0=$(date +%s)
  timeout --kill-after=10 "$t" "$@" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - s0 ))
  tail -4 "$log" | sed 's/^/   /'
}
doctest_counts() {  # "cases: 34 passed, 0 failed, 7 skipped; assertions: 71 passed, 0 failed"
  sed -n -e 's/^\[doctest\] test cases: *[0-9]* | *\([0-9]*\) passed | *\([0-9]*\) failed | *\([0-9]*\) skipped.*/cases: \1 passed, \2 failed, \3 skipped/p' \
    -e 's/^\[doctest\] assertions: *[0-9]* | *\([0-9]*\) passed | *\([0-9]*\) failed.*/assertions: \1 passed, \2 failed/p' "$1" |
    paste -sd ';' - | sed 's/;/; /'
}
verdict() {  # verdict LOG: passed / FAILED / TIMEOUT / skipped (no device), from rc and the log
  if [ "$rc" -eq 125 ]; then echo "SKIPPED (time)"
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "TIMEOUT"
  elif [ "$rc" -ne 0 ] || ! grep -q "Status: SUCCESS" "$1"; then echo "FAILED"
  elif grep -q "CUDA tests skipped: no device" "$1"; then echo "skipped (no device)"
  else echo "passed"; fi
}

# ---- 1. compute-sanitizer ----
# NCCL cases (their peers' timing, NCCL's own kernels) and the conformance cases (long) are left
# out; racecheck and synccheck look at the kernels that use shared memory and __syncthreads
# (reductions, argmax, joins).
SANITIZER=$(command -v compute-sanitizer || true)
[ -z "$SANITIZER" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && SANITIZER=/usr/local/cuda/bin/compute-sanitizer
SANITIZE_ALL='--test-case-exclude=*conformance*,nccl:*,*over the CUDA devices*,*device_put*'
SANITIZE_SHARED='--test-case=*reduc*,*argmax*,*concatenate*,*merge*'
if [ -z "$gpu" ]; then
  row compute-sanitizer "skipped (no GPU)" 0 ""
elif [ -z "$SANITIZER" ]; then
  row compute-sanitizer "not installed" 0 "compute-sanitizer not on PATH nor in /usr/local/cuda/bin"
else
  for tool in memcheck racecheck synccheck; do
    case $tool in memcheck) budget=100 filter=$SANITIZE_ALL ;; racecheck) budget=60 filter=$SANITIZE_SHARED ;;
                  synccheck) budget=45 filter=$SANITIZE_SHARED ;; esac
    log="$LOG_DIR/sanitizer-$tool.log"
    step "compute-sanitizer --tool $tool" "$budget" 300 "$log" "$SANITIZER" --tool "$tool" --error-exitcode 99 \
      --print-limit 20 "$TEST" "$filter"
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^========= //')
    case $rc in
      0) result=clean ;;
      99) result=ERRORS; failed=1 ;;
      124|137) result="TIMEOUT (nothing found until then)"; grep -q "=========.*Error\|hazard" "$log" && { result="TIMEOUT, ERRORS"; failed=1; } ;;
      125) result="SKIPPED (time)" ;;
      *) result="FAILED (rc $rc)"; failed=1 ;;
    esac
    row "sanitizer $tool" "$result" "$secs" "${summary:-$(doctest_counts "$log")}"
  done
fi

# ---- 2. the CUDA tests, 3. the conformance cases on the device ----
step "CUDA tests" 120 200 "$LOG_DIR/tests.log" "$TEST" '--test-case-exclude=*conformance*'
v=$(verdict "$LOG_DIR/tests.log"); [ "$v" = passed ] || [ "$v" = "skipped (no device)" ] || failed=1
row "CUDA tests" "$v" "$secs" "$(doctest_counts "$LOG_DIR/tests.log")"
step "conformance on the device" 90 150 "$LOG_DIR/conformance.log" "$TEST" '--test-case=*conformance*'
v=$(verdict "$LOG_DIR/conformance.log"); [ "$v" = passed ] || [ "$v" = "skipped (no device)" ] || failed=1
row "conformance" "$v" "$secs" "$(doctest_counts "$LOG_DIR/conformance.log")"
for log in tests conformance; do
  if grep -q "ERROR\|FAILED\|TEST CASE" "$LOG_DIR/$log.log" && ! grep -q "Status: SUCCESS" "$LOG_DIR/$log.log"; then
    echo "---- $log: first failures ($LOG_DIR/$log.log)"; grep -B2 -A8 -m6 "ERROR:" "$LOG_DIR/$log.log" | head -60
  fi
done

# ---- 4. benchmarks, nax then JAX ----
: >"$LOG_DIR/nax.log"
: >"$LOG_DIR/jax.log"
if [ -z "$gpu" ]; then
  row benchmarks "skipped (no GPU)" 0 ""
else
  step "nax GPU benchmarks" 120 100 "$LOG_DIR/nax.log" "$BENCH" "${ARGS[@]}"
  [ "$rc" -eq 0 ] || { row "nax benchmarks" "FAILED (rc $rc)" "$secs" "$LOG_DIR/nax.log"; failed=1; }
  grep -i "wrong value" "$LOG_DIR/nax.log" && { row "nax benchmarks" "WRONG VALUES" "$secs" "$(grep -ci 'wrong value' "$LOG_DIR/nax.log") cases"; failed=1; }
  if python3 -c "import jax, sys; sys.exit(0 if any(d.platform == 'gpu' for d in jax.devices()) else 1)" >/dev/null 2>&1; then
    step "JAX peers" 100 40 "$LOG_DIR/jax.log" python3 bench/gpu/jax_peers.py "${ARGS[@]}"
    [ "$rc" -eq 0 ] || row "JAX peers" "FAILED (rc $rc)" "$secs" "$LOG_DIR/jax.log"
  else
    row "JAX peers" "skipped" 0 "python3 cannot import jax with a GPU"
  fi
fi

# ---- 5. the --cuda examples ----
for ex in "${EXAMPLES[@]}"; do
  [ -x "$ex" ] || continue
  name=$(basename "$ex")
  [ "$name" = test_cuda ] && continue
  step "$name --cuda" 40 0 "$LOG_DIR/$name.log" "$ex" --cuda
  if [ "$rc" -eq 0 ]; then
    if grep -q "no CUDA device found" "$LOG_DIR/$name.log"; then v="skipped (no device)"; else v=passed; fi
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then v=TIMEOUT; failed=1
  elif [ "$rc" -eq 125 ]; then v="SKIPPED (time)"
  else v="FAILED (rc $rc)"; failed=1; fi
  row "example $name" "$v" "$secs" "$(tail -1 "$LOG_DIR/$name.log" | cut -c1-70)"
done

# ---- the table ----
total=$(( $(date +%s) - start ))
{
  echo "nax CUDA backend: ${gpu:-no GPU}; $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')${PREBUILT:+ (binaries: $(sed -n 's/^commit: //p' "$BIN/MANIFEST.txt" 2>/dev/null | head -1))}; total ${total} s"
  echo
  echo "| step / case | result | seconds or unit | detail / baseline (ratio, target) / JAX (nax/JAX) |"
  echo "| --- | --- | --- | --- |"
  awk -F'\t' '{ for (i = 1; i <= 4; i++) gsub(/\|/, "/", $i); printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$ROWS"
  awk '
    FILENAME == ARGV[1] { if ($1 == "JAX") jax[$2] = $3; next }
    $1 == "RESULT" {
      base = ($6 > 0) ? sprintf("%s %.2f (%.3f, >=%.2f)", $5, $6, $3 / $6, $7) : "-"
      j = ($2 in jax) ? sprintf("JAX %.2f (%.3f)", jax[$2], (jax[$2] > 0) ? $3 / jax[$2] : 0) : "JAX -"
      printf "| bench %s | %.2f | %s | %s; %s |\n", $2, $3, $4, base, j
    }' "$LOG_DIR/jax.log" "$LOG_DIR/nax.log"
} >"$LOG_DIR/table.md"
echo
cat "$LOG_DIR/table.md"
echo
echo "logs: $LOG_DIR"
if [ "$failed" -ne 0 ]; then echo "SOME STEPS FAILED"; exit 1; fi
exit 0
