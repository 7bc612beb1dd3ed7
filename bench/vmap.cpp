// vmap and xmap against hand-written equivalents (issue: maps):
// - vmap(f) of a layer `tanh(dot<in>(x, w) + b)` over a batch vs the same batched expression
//   written by hand (target: vmap no more than 5% slower: it is the same fused program);
// - vmap(f) vs a loop that calls f on one example at a time (report the ratio);
// - xmap over 4 host devices (batch bound to a mesh axis) vs vmap on one device: on this
//   2-core machine it measures the overhead of threads, shards and the psum.
// Run: OMP_NUM_THREADS=2 build/host/bench/bench_vmap --benchmark_repetitions=5
//      --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>

#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(data);

namespace {

constexpr nax::index_t batch_size = 4096, in_size = 256, out_size = 256;

struct Problem {
  nax::Array<float, batch, in> x{{batch_size, in_size}};
  nax::Array<float, in, out> w{{in_size, out_size}};
  nax::Array<float, out> b{{out_size}};
  nax::Array<float, batch, out> y{{batch_size, out_size}};
  Problem() {
    for (nax::index_t i = 0; i < x.size(); ++i) x.data()[i] = std::sin(0.001f * float(i));
    for (nax::index_t i = 0; i < w.size(); ++i) w.data()[i] = std::cos(0.01f * float(i)) / 16;
    for (nax::index_t i = 0; i < b.size(); ++i) b.data()[i] = 0.01f * float(i % 7);
  }
};

Problem& problem() {
  static Problem p;
  return p;
}

auto layer = [](const auto& x, const auto& w, const auto& b) { return nax::tanh(nax::dot<in>(x, w) + b); };

void set_flops(benchmark::State& state) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * batch_size * in_size * out_size * double(state.iterations()),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void hand_batched(benchmark::State& state) {
  auto& p = problem();
  for (auto _ : state) {
    p.y = nax::tanh(nax::dot<in>(p.x, p.w) + p.b);
    benchmark::DoNotOptimize(p.y.data());
  }
  set_flops(state);
}

void vmapped(benchmark::State& state) {
  auto& p = problem();
  auto f = nax::vmap<batch>(layer);
  for (auto _ : state) {
    p.y = f(p.x, p.w, p.b);
    benchmark::DoNotOptimize(p.y.data());
  }
  set_flops(state);
}

void loop_per_example(benchmark::State& state) {
  auto& p = problem();
  for (auto _ : state) {
    for (nax::index_t e = 0; e < batch_size; ++e) {
      // One example: a row of x, f on it, written into the matching row of y.
      auto row = nax::detail::drop_axis<batch>(p.x.view(), e);
      auto out_row = nax::detail::drop_axis<batch>(p.y.view(), e);
      out_row.assign(layer(row, p.w, p.b));
    }
    benchmark::DoNotOptimize(p.y.data());
  }
  set_flops(state);
}

void xmapped_4_devices(benchmark::State& state) {
  auto& p = problem();
  static nax::Mesh<data> mesh(nax::host::devices(4), {4});
  auto f = nax::xmap<nax::bind<batch, data>>(layer, mesh);
  for (auto _ : state) {
    auto y = f(p.x, p.w, p.b);
    benchmark::DoNotOptimize(y.data());
  }
  set_flops(state);
}

void xmapped_with_psum(benchmark::State& state) {
  auto& p = problem();
  static nax::Mesh<data> mesh(nax::host::devices(4), {4});
  auto f = nax::xmap<nax::bind<batch, data>>(
      [](const auto& x, const auto& w, const auto& b) { return nax::psum<batch>(nax::tanh(nax::dot<in>(x, w) + b)); }, mesh);
  for (auto _ : state) {
    auto y = f(p.x, p.w, p.b);
    benchmark::DoNotOptimize(y.data());
  }
  set_flops(state);
}

void vmapped_with_psum(benchmark::State& state) {
  auto& p = problem();
  auto f = nax::vmap<batch>(
      [](const auto& x, const auto& w, const auto& b) { return nax::psum<batch>(nax::tanh(nax::dot<in>(x, w) + b)); },
      nax::out_axes(nax::replicated));
  for (auto _ : state) {
    nax::Array<float, out> y = f(p.x, p.w, p.b);
    benchmark::DoNotOptimize(y.data());
  }
  set_flops(state);
}

}  // namespace

BENCHMARK(hand_batched)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(vmapped)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(loop_per_example)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(vmapped_with_psum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(xmapped_4_devices)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(xmapped_with_psum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
