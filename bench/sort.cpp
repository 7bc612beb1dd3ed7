// Sorting (issue 17's Speed section): sort of 2^24 floats as one line, argsort of it, the rows
// of a 4096 x 4096 float array, and top_k of 64 rows of 50,000 logits (a language model's
// sampling), each against the standard library (std::sort / std::stable_sort on a copy; one
// thread for one line, OpenMP over rows) and numpy and JAX on the CPU (bench/jax_peers.py sort,
// run at the end when python3 imports jax). nax sorts each line by an LSD radix sort of its
// total-order keys (backend/host/sort.hpp). Rates are millions of elements per second.
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true build/host/bench/bench_sort [--no-jax]
// (NAX_JAX_PYTHON names a python that imports jax and numpy, e.g. a venv's; python3 otherwise)
#include <nax/nax.hpp>

#include "support.hpp"

#include <algorithm>
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
NAX_AXIS(best);
using nax::index_t;

constexpr index_t N = index_t(1) << 24, R = 4096, C = 4096, TR = 64, V = 50000, K = 40;

using nax_bench::median_seconds;

void report(const std::string& name, double seconds, double elements) {
  std::printf("%-48s %10.3f ms %9.1f M elements/s\n", name.c_str(), seconds * 1e3, elements / seconds / 1e6);
  std::fflush(stdout);
}

// Values with many ties, as bench/jax_peers.py makes them.
float value(index_t k) { return static_cast<float>((static_cast<std::uint64_t>(k) * 2654435761u) % 100003) * 1e-3f - 50.f; }
}  // namespace

int main(int argc, char** argv) {
  const bool jax = !nax_bench::flag_given(argc, argv, "--no-jax");
  std::printf("threads %d\n", omp_get_max_threads());

  // ---- one line of 2^24 floats ----
  nax::Array<float, line> x({N}), out({N});
  for (index_t k = 0; k < N; ++k) x(k) = value(k);
  std::vector<float> copy(static_cast<std::size_t>(N));
  report("sort 2^24/nax", median_seconds([&] { out = nax::sort<line>(x); }, 1.0), N);
  report("sort 2^24/std::sort (copy + sort, 1 thread)", median_seconds([&] {
           std::copy(x.data(), x.data() + N, copy.begin());
           std::sort(copy.begin(), copy.end());
         }, 1.0),
         N);
  std::printf("sort 2^24: same as std::sort: %s\n", std::equal(copy.begin(), copy.end(), out.data()) ? "yes" : "NO");
  nax::Array<index_t, line> order({N});
  std::vector<index_t> hand_order(static_cast<std::size_t>(N));
  report("argsort 2^24/nax", median_seconds([&] { order = nax::argsort<line>(x); }, 1.0), N);
  report("argsort 2^24/std::stable_sort of indices (1 thread)", median_seconds([&] {
           std::iota(hand_order.begin(), hand_order.end(), index_t(0));
           std::stable_sort(hand_order.begin(), hand_order.end(), [&](index_t a, index_t b) { return x(a) < x(b); });
         }, 1.0),
         N);
  std::printf("argsort 2^24: same as std::stable_sort: %s\n",
              std::equal(hand_order.begin(), hand_order.end(), order.data()) ? "yes" : "NO");

  // ---- the rows of 4096 x 4096 ----
  nax::Array<float, row, col> m({R, C}), mo({R, C}), mh({R, C});
  for (index_t k = 0; k < R * C; ++k) m.data()[k] = value(k * 7 + 1);
  report("sort<col> 4096x4096/nax", median_seconds([&] { mo = nax::sort<col>(m); }), R * C);
  report("sort<col> 4096x4096/std::sort (OpenMP over rows)", median_seconds([&] {
           std::copy(m.data(), m.data() + R * C, mh.data());
#pragma omp parallel for schedule(static)
           for (index_t r = 0; r < R; ++r) std::sort(mh.data() + r * C, mh.data() + (r + 1) * C);
         }),
         R * C);
  std::printf("sort<col>: same as std::sort: %s\n", std::equal(mo.data(), mo.data() + R * C, mh.data()) ? "yes" : "NO");

  // ---- top_k of 64 x 50,000 logits ----
  nax::Array<float, row, col> logits({TR, V});
  for (index_t k = 0; k < TR * V; ++k) logits.data()[k] = value(k * 13 + 5);
  nax::Array<float, row, best> top({TR, K});
  nax::Array<index_t, row, best> top_at({TR, K});
  report("top_k 64x50000 k=40/nax", median_seconds([&] {
           auto [v, i] = nax::top_k<col, best>(logits, K);
           top = v;
           top_at = i;
         }),
         TR * V);
  std::vector<index_t> hand_top(static_cast<std::size_t>(TR * K));
  report("top_k 64x50000 k=40/std::partial_sort (OpenMP over rows)", median_seconds([&] {
#pragma omp parallel
           {
             std::vector<index_t> idx(static_cast<std::size_t>(V));
#pragma omp for schedule(static)
             for (index_t r = 0; r < TR; ++r) {
               const float* l = logits.data() + r * V;
               std::iota(idx.begin(), idx.end(), index_t(0));
               std::partial_sort(idx.begin(), idx.begin() + K, idx.end(),
                                 [&](index_t a, index_t b) { return l[a] > l[b] || (l[a] == l[b] && a < b); });
               std::copy(idx.begin(), idx.begin() + K, hand_top.begin() + r * K);
             }
           }
         }),
         TR * V);
  std::printf("top_k: same indices as std::partial_sort: %s\n",
              std::equal(hand_top.begin(), hand_top.end(), top_at.data()) ? "yes" : "NO");

  if (jax) {
    std::printf("\nnumpy and JAX on the CPU (bench/jax_peers.py sort):\n");
    std::fflush(stdout);
    const std::string cmd = nax_bench::jax_peers_command("sort", "jax, numpy");
    if (std::system(cmd.c_str()) != 0) std::printf("(jax not found: skipped)\n");
  }
}
