// float exp and tanh on the host (core/vector_math.hpp): nax::exp / nax::tanh over 2^24 floats
// (one fused pass each, OpenMP threads) against a hand-written loop calling libm's std::exp /
// std::tanh (the same threads), GB/s as 8 bytes per element (read and write). Their accuracy
// over all 2^32 floats: NAX_EXHAUSTIVE_ULPS=1 build/host/tests/test_core -tc='vector_math*'.
// Run: OMP_NUM_THREADS=2 build/host/bench/bench_vector_math
#include <nax/nax.hpp>

#include <cmath>
#include <cstdio>

#include "support.hpp"

NAX_AXIS(i);

int main() {
  const nax::index_t n = nax::index_t{1} << 24;
  nax::Array<float, i> x({n}), y({n});
  for (nax::index_t k = 0; k < n; ++k) x.data()[k] = static_cast<float>(k % 4001) * 0.002f - 4.0f;
  const double bytes = 8.0 * static_cast<double>(n);
  const auto rate = [&](auto&& fn) { return bytes / nax_bench::median_seconds(fn) / 1e9; };
  const auto libm_loop = [&](auto f) {
    return [&, f] {
      const float* in = x.data();
      float* out = y.data();
#pragma omp parallel for
      for (nax::index_t k = 0; k < n; ++k) out[k] = f(in[k]);
    };
  };
  const double nax_tanh = rate([&] { y = nax::tanh(x); });
  const double hand_tanh = rate(libm_loop([](float v) { return std::tanh(v); }));
  const double nax_exp = rate([&] { y = nax::exp(x); });
  const double hand_exp = rate(libm_loop([](float v) { return std::exp(v); }));
  std::printf("2^24 floats, GB/s (8 bytes per element)   nax   libm loop   ratio\n");
  std::printf("tanh                                     %6.1f   %6.1f   %5.2fx\n", nax_tanh, hand_tanh, nax_tanh / hand_tanh);
  std::printf("exp                                      %6.1f   %6.1f   %5.2fx\n", nax_exp, hand_exp, nax_exp / hand_exp);
}
