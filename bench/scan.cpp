// Scans (issue 17's Speed section): cumsum of 2^24 floats as one line, and of a 4096 x 4096
// float array along its inner and its outer axis, each against std::inclusive_scan (one
// thread), a hand-written OpenMP two-pass scan of the same blocking, and numpy and JAX on the
// CPU (bench/jax_peers.py scan, run at the end when python3 imports jax). GB/s counts the
// operand read once and the result written once (8 bytes per float element).
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true build/host/bench/bench_scan [--no-jax]
// (NAX_JAX_PYTHON names a python that imports jax and numpy, e.g. a venv's; python3 otherwise)
#include <nax/nax.hpp>

#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include <omp.h>

namespace {
NAX_AXIS(line);
NAX_AXIS(row);
NAX_AXIS(col);
using nax::index_t;

constexpr index_t N = index_t(1) << 24, R = 4096, C = 4096;

using nax_bench::median_seconds;

void report(const std::string& name, double seconds, double bytes) {
  std::printf("%-44s %10.3f ms %8.2f GB/s\n", name.c_str(), seconds * 1e3, bytes / seconds / 1e9);
  std::fflush(stdout);
}

// The largest relative difference between two results (float sums in other orders differ).
double largest_difference(const float* a, const float* b, index_t n) {
  double worst = 0;
  for (index_t k = 0; k < n; k += 101) worst = std::max(worst, std::abs(double(a[k]) - b[k]) / (1.0 + std::abs(double(b[k]))));
  return worst;
}
}  // namespace

int main(int argc, char** argv) {
  const bool jax = !nax_bench::flag_given(argc, argv, "--no-jax");
  std::printf("threads %d\n", omp_get_max_threads());

  // ---- one line of 2^24 floats ----
  nax::Array<float, line> x({N}), out({N}), hand({N});
  for (index_t k = 0; k < N; ++k) x(k) = static_cast<float>((k * 2654435761u) % 1000) * 1e-3f - 0.5f;
  const double line_bytes = 8.0 * N;
  report("cumsum 2^24/nax", median_seconds([&] { out = nax::cumsum<line>(x); }), line_bytes);
  report("cumsum 2^24/std::inclusive_scan (1 thread)",
         median_seconds([&] { std::inclusive_scan(x.data(), x.data() + N, hand.data()); }), line_bytes);
  report("cumsum 2^24/hand (OpenMP, two passes)", median_seconds([&] {
           const float* in = x.data();
           float* o = hand.data();
           std::vector<float> totals(static_cast<std::size_t>(omp_get_max_threads()) + 1);
#pragma omp parallel
           {
             const index_t threads = omp_get_num_threads(), me = omp_get_thread_num();
             const index_t k0 = N * me / threads, k1 = N * (me + 1) / threads;
             float running = 0;
             for (index_t k = k0; k < k1; ++k) o[k] = running += in[k];
             totals[static_cast<std::size_t>(me) + 1] = running;
#pragma omp barrier
             float carry = 0;
             for (index_t t = 1; t <= me; ++t) carry += totals[static_cast<std::size_t>(t)];
             if (me > 0)
               for (index_t k = k0; k < k1; ++k) o[k] += carry;
           }
         }),
         line_bytes);
  std::printf("cumsum 2^24: largest relative difference nax vs hand %.3g\n", largest_difference(out.data(), hand.data(), N));

  // ---- 4096 x 4096: along the inner axis (rows are lines) and the outer one ----
  nax::Array<float, row, col> m({R, C}), mo({R, C}), mh({R, C});
  for (index_t k = 0; k < R * C; ++k) m.data()[k] = static_cast<float>((k * 40503u) % 1000) * 1e-3f - 0.5f;
  const double m_bytes = 8.0 * R * C;
  report("cumsum<col> 4096x4096/nax", median_seconds([&] { mo = nax::cumsum<col>(m); }), m_bytes);
  report("cumsum<col> 4096x4096/hand (OpenMP over rows)", median_seconds([&] {
           const float* in = m.data();
           float* o = mh.data();
#pragma omp parallel for schedule(static)
           for (index_t r = 0; r < R; ++r) {
             float running = 0;
             for (index_t c = 0; c < C; ++c) o[r * C + c] = running += in[r * C + c];
           }
         }),
         m_bytes);
  std::printf("cumsum<col>: largest relative difference %.3g\n", largest_difference(mo.data(), mh.data(), R * C));
  report("cumsum<row> 4096x4096/nax", median_seconds([&] { mo = nax::cumsum<row>(m); }), m_bytes);
  report("cumsum<row> 4096x4096/hand (OpenMP over columns, rows in turn)", median_seconds([&] {
           const float* in = m.data();
           float* o = mh.data();
#pragma omp parallel
           {
             const index_t threads = omp_get_num_threads(), me = omp_get_thread_num();
             const index_t c0 = C * me / threads, c1 = C * (me + 1) / threads;
             for (index_t c = c0; c < c1; ++c) o[c] = in[c];
             for (index_t r = 1; r < R; ++r)
#pragma omp simd
               for (index_t c = c0; c < c1; ++c) o[r * C + c] = o[(r - 1) * C + c] + in[r * C + c];
           }
         }),
         m_bytes);
  std::printf("cumsum<row>: largest relative difference %.3g\n", largest_difference(mo.data(), mh.data(), R * C));

  if (jax) {
    std::printf("\nnumpy and JAX on the CPU (bench/jax_peers.py scan):\n");
    std::fflush(stdout);
    const std::string cmd = nax_bench::jax_peers_command("scan", "jax, numpy");
    if (std::system(cmd.c_str()) != 0) std::printf("(jax not found: skipped)\n");
  }
}
