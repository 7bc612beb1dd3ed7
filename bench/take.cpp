// Indexing (issue 17's Speed section): an embedding lookup take<vocab>(table, tokens) over a
// 50,000 x 768 float table with 16,384 tokens, its gradient (scatter_add of the cotangent into
// zeros of the table's shape, and nax::grad of a loss through take), and the cross-entropy with
// integer labels over 8192 x 50,000 float logits (value; and value_and_grad), each against a
// hand-written OpenMP loop and JAX on the CPU (bench/jax_peers.py take, run at the end when
// python3 imports jax). GB/s counts the bytes each case must move at least:
//   take: the rows read and the output written (2 x 16384 x 768 x 4);
//   scatter: the table written once (zeros), the cotangent read, the touched rows read and written;
//   cross-entropy: the logits read once.
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true build/host/bench/bench_take [--no-jax]
// (NAX_JAX_PYTHON names a python that imports jax, e.g. a venv's; python3 otherwise)
#include <nax/nax.hpp>

#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <omp.h>

namespace {
NAX_AXIS(vocab);
NAX_AXIS(width);
NAX_AXIS(tok);
NAX_AXIS(row);
NAX_AXIS(cls);
using nax::index_t;

constexpr index_t V = 50000, W = 768, T = 16384, R = 8192, K = 50000;

using nax_bench::median_seconds;

struct row_result {
  std::string name;
  double seconds, bytes;
};
std::vector<row_result> results;

void report(const std::string& name, double seconds, double bytes) {
  results.push_back({name, seconds, bytes});
  std::printf("%-40s %10.3f ms %8.2f GB/s\n", name.c_str(), seconds * 1e3, bytes / seconds / 1e9);
  std::fflush(stdout);
}

template <class A>
void fill(A& a, unsigned salt) {
  float* p = a.data();
  const index_t n = a.size();
#pragma omp parallel for schedule(static)
  for (index_t k = 0; k < n; ++k) p[k] = static_cast<float>(((k + salt) * 2654435761u) % 1000) * 1e-3f - 0.5f;
}
}  // namespace

int main(int argc, char** argv) {
  const bool jax = !nax_bench::flag_given(argc, argv, "--no-jax");
  std::printf("threads %d\n", omp_get_max_threads());

  nax::Array<float, vocab, width> table({V, W});
  fill(table, 1);
  nax::Array<int, tok> tokens({T});
  for (index_t t = 0; t < T; ++t) tokens(t) = static_cast<int>((t * 7919u + 13u) % V);
  nax::Array<float, tok, width> out({T, W}), ct({T, W});
  fill(ct, 2);

  // ---- take ----
  const double take_bytes = 2.0 * T * W * 4;
  report("take/nax", median_seconds([&] { out = nax::take<vocab>(table, tokens); }), take_bytes);
  report("take/hand", median_seconds([&] {
           const float* src = table.data();
           float* dst = out.data();
           const int* tk = tokens.data();
#pragma omp parallel for schedule(static)
           for (index_t t = 0; t < T; ++t) std::memcpy(dst + t * W, src + index_t(tk[t]) * W, W * sizeof(float));
         }),
         take_bytes);
  double check = 0;
  for (index_t t = 0; t < T; t += 997) check += out(t, 5) - table(tokens(t), 5);
  if (check != 0) std::printf("take: results differ\n");

  // ---- the embedding's gradient: a scatter-add of the cotangent ----
  const double scatter_bytes = double(V) * W * 4 + 3.0 * T * W * 4;
  nax::Array<float, vocab, width> grad_table({V, W});
  report("scatter_add/nax", median_seconds([&] {
           // zeros as a lazy broadcast of a rank-0 zero: written once, into the scatter's result
           grad_table = nax::scatter_add<vocab>(
               nax::broadcast_to<vocab, width>(nax::Array<float>(std::array<index_t, 0>{}), {V, W}), tokens, ct);
         }),
         scatter_bytes);
  nax::Array<float, vocab, width> hand_grad({V, W});
  report("scatter_add/hand", median_seconds([&] {
           float* g = hand_grad.data();
           const float* c = ct.data();
           const int* tk = tokens.data();
#pragma omp parallel
           {
             const index_t threads = omp_get_num_threads(), me = omp_get_thread_num();
             const index_t rows0 = V * me / threads, rows1 = V * (me + 1) / threads;
             std::memset(g + rows0 * W, 0, (rows1 - rows0) * W * sizeof(float));
#pragma omp barrier
             const index_t c0 = W * me / threads, c1 = W * (me + 1) / threads;  // columns: no races
             for (index_t t = 0; t < T; ++t) {
               float* to = g + index_t(tk[t]) * W;
               const float* from = c + t * W;
               for (index_t j = c0; j < c1; ++j) to[j] += from[j];
             }
           }
         }),
         scatter_bytes);
  double diff = 0;
  for (index_t k = 0; k < grad_table.size(); k += 4099) diff = std::max(diff, double(std::abs(grad_table.data()[k] - hand_grad.data()[k])));
  if (diff > 1e-4) std::printf("scatter_add: results differ by %g\n", diff);
  report("embedding_grad/nax (grad of sum(take*ct))", median_seconds([&] {
           auto g = nax::grad([&](const auto& tab) { return nax::sum(nax::take<vocab>(tab, tokens) * ct); })(table);
           (void)g;
         }),
         scatter_bytes);

  // ---- cross-entropy with integer labels over 50,000 classes ----
  nax::Array<float, row, cls> logits({R, K});
  fill(logits, 3);
  nax::Array<int, row> labels({R});
  for (index_t r = 0; r < R; ++r) labels(r) = static_cast<int>((r * 104729u) % K);
  nax::Array<float, row> loss({R}), hand_loss({R});
  const double ce_bytes = double(R) * K * 4;
  report("cross_entropy/nax", median_seconds([&] {
           loss = nax::softmax_cross_entropy_with_integer_labels<cls>(logits, labels);
         }),
         ce_bytes);
  report("cross_entropy/hand (fused per row)", median_seconds([&] {
           const float* z = logits.data();
           const int* lb = labels.data();
           float* l = hand_loss.data();
#pragma omp parallel for schedule(static)
           for (index_t r = 0; r < R; ++r) {
             const float* x = z + r * K;
             float m = -std::numeric_limits<float>::infinity();
             for (index_t k = 0; k < K; ++k) m = std::max(m, x[k]);
             float s = 0;
#pragma omp simd reduction(+ : s)
             for (index_t k = 0; k < K; ++k) s += std::exp(x[k] - m);
             l[r] = m + std::log(s) - x[lb[r]];
           }
         }),
         ce_bytes);
  double worst = 0;
  for (index_t r = 0; r < R; ++r) worst = std::max(worst, double(std::abs(loss(r) - hand_loss(r)) / std::abs(hand_loss(r))));
  std::printf("cross_entropy: largest relative difference nax vs hand %.3g\n", worst);
  report("cross_entropy value_and_grad/nax", median_seconds([&] {
           auto [value, g] = nax::value_and_grad([&](const auto& z) {
             return nax::mean(nax::softmax_cross_entropy_with_integer_labels<cls>(z, labels));
           })(logits);
           (void)value;
           (void)g;
         }),
         ce_bytes);

  if (jax) {
    std::printf("\nJAX on the CPU (bench/jax_peers.py take):\n");
    std::fflush(stdout);
    const std::string cmd = nax_bench::jax_peers_command("take");
    if (std::system(cmd.c_str()) != 0) std::printf("(jax not found: skipped)\n");
  }
}
