// One adamw step (optax.adamw: scale_by_adam, add_decayed_weights, scale_by_learning_rate) over
// many float parameters in 100 leaves (a std::vector of arrays), four ways:
//   fused      nax::optim::update_and_apply: one pass per leaf, reads g, p, mu, nu and writes
//              p, mu, nu (7 x 4 bytes per parameter: the bytes that must move);
//   optax      opt.update then apply_updates, optax's loop: the update pass also writes the
//              updates, which apply_updates reads back (10 x 4 bytes per parameter);
//   unfused    three nax assignments per leaf (mu, nu, then p from them): 10 x 4 bytes;
//   loop       a hand-written OpenMP loop per leaf with the same arithmetic: 7 x 4 bytes.
// GB/s is computed against the 7 x 4 bytes that must move, for all four. Parameters: total
// parameters (default 100M: 1.6 GB of params, grads and moments) via NAX_BENCH_PARAMS.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include <nax/optim.hpp>

namespace {
NAX_AXIS(unit);
using Leaf = nax::Array<float, unit>;
using Tree = std::vector<Leaf>;
constexpr int leaves = 100;

nax::index_t total_params() {
  const char* s = std::getenv("NAX_BENCH_PARAMS");
  return s ? std::atoll(s) : 100'000'000;
}

Tree make(float value) {
  Tree t;
  const nax::index_t n = total_params() / leaves;
  for (int l = 0; l < leaves; ++l) t.push_back(nax::full<float, unit>(value + 0.001f * l, n));
  return t;
}

auto optimizer() { return nax::optim::adamw(1e-3, 0.9, 0.999, 1e-8, 0.0, 1e-4); }

void report(benchmark::State& state) {
  const double bytes = 7.0 * 4.0 * double(total_params() / leaves * leaves);
  state.counters["GB/s"] = benchmark::Counter(bytes * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_fused(benchmark::State& state) {
  auto opt = optimizer();
  Tree p = make(1.f), g = make(0.5f);
  auto s = opt.init(p);
  for (auto _ : state) {
    auto [p2, s2] = nax::optim::update_and_apply(opt, g, std::move(s), std::move(p));
    p = std::move(p2);
    s = std::move(s2);
  }
  benchmark::DoNotOptimize(p[0].data()[0]);
  report(state);
}

void BM_optax_loop(benchmark::State& state) {
  auto opt = optimizer();
  Tree p = make(1.f), g = make(0.5f);
  auto s = opt.init(p);
  for (auto _ : state) {
    auto [u, s2] = opt.update(g, std::move(s), p);
    p = nax::optim::apply_updates(std::move(p), u);
    s = std::move(s2);
  }
  benchmark::DoNotOptimize(p[0].data()[0]);
  report(state);
}

void BM_unfused(benchmark::State& state) {
  Tree p = make(1.f), g = make(0.5f), mu = make(0.f), nu = make(0.f);
  std::int64_t count = 0;
  for (auto _ : state) {
    ++count;
    const float bc1 = float(1 - std::pow(0.9, double(count))), bc2 = float(1 - std::pow(0.999, double(count)));
    for (int l = 0; l < leaves; ++l) {
      mu[l] = float(1 - 0.9) * g[l] + 0.9f * mu[l];
      nu[l] = float(1 - 0.999) * nax::square(g[l]) + 0.999f * nu[l];
      p[l] = p[l] + -1e-3f * ((mu[l] / bc1) / (nax::sqrt(nu[l] / bc2 + 0.f) + 1e-8f) + 1e-4f * p[l]);
    }
  }
  benchmark::DoNotOptimize(p[0].data()[0]);
  report(state);
}

void BM_loop(benchmark::State& state) {
  Tree p = make(1.f), g = make(0.5f), mu = make(0.f), nu = make(0.f);
  std::int64_t count = 0;
  for (auto _ : state) {
    ++count;
    const float bc1 = float(1 - std::pow(0.9, double(count))), bc2 = float(1 - std::pow(0.999, double(count)));
    for (int l = 0; l < leaves; ++l) {
      float* __restrict pp = p[l].data();
      float* __restrict m = mu[l].data();
      float* __restrict v = nu[l].data();
      const float* __restrict gg = g[l].data();
      const nax::index_t n = p[l].size();
#pragma omp parallel for schedule(static)
      for (nax::index_t i = 0; i < n; ++i) {
        const float m2 = float(1 - 0.9) * gg[i] + 0.9f * m[i];
        const float v2 = float(1 - 0.999) * (gg[i] * gg[i]) + 0.999f * v[i];
        m[i] = m2;
        v[i] = v2;
        pp[i] = pp[i] + -1e-3f * ((m2 / bc1) / (std::sqrt(v2 / bc2 + 0.f) + 1e-8f) + 1e-4f * pp[i]);
      }
    }
  }
  benchmark::DoNotOptimize(p[0].data()[0]);
  report(state);
}

}  // namespace

BENCHMARK(BM_fused)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_optax_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_unfused)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
