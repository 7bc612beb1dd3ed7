// Per-example gradients (vmap(grad(f)), float) through an evaluation that does not vary over
// the examples: the tape gives that entry a per-example cotangent and runs its backward pass
// once per example (tape::run_members, docs/autodiff.md). A one-hidden-layer tanh model,
// batch 256, width 256, the first weight used scaled by 2, in three spellings:
// - lazy: one expression (the scaled weight inline): grad's static adjoint, batched;
// - evaluated: the activation evaluated (it varies over the examples: one batched entry);
// - member loop: the scaled weight evaluated too (the same for every example), so its entry's
//   backward pass runs 256 times, on one example's cotangent each.
// Each writes the per-example gradient of both weights (256 x 256 x 256 floats for w1).
// Run: OMP_NUM_THREADS=2 build/host/bench/bench_per_example_grad --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>

#include <nax/nax.hpp>

NAX_AXIS(example);
NAX_AXIS(in);
NAX_AXIS(hidden);

namespace {

constexpr nax::index_t n_examples = 256, width = 256;

struct Problem {
  nax::Array<float, example, in> x{{n_examples, width}};
  nax::Array<float, in, hidden> w1{{width, width}};
  nax::Array<float, hidden> w2{{width}};
  nax::Array<float, example, in, hidden> g1{{n_examples, width, width}};
  nax::Array<float, example, hidden> g2{{n_examples, width}};
  Problem() {
    for (nax::index_t i = 0; i < x.size(); ++i) x.data()[i] = std::sin(0.001f * float(i));
    for (nax::index_t i = 0; i < w1.size(); ++i) w1.data()[i] = std::cos(0.01f * float(i)) / 16;
    for (nax::index_t i = 0; i < w2.size(); ++i) w2.data()[i] = 0.01f * float(i % 7);
  }
};

Problem& problem() {
  static Problem p;
  return p;
}

// 0: lazy, 1: the activation evaluated, 2: the scaled weight evaluated too.
template <int Evaluated>
auto per_example_step(Problem& p) {
  auto loss = [](const auto& a, const auto& b, const auto& xe) {
    auto scaled = [&] {
      if constexpr (Evaluated == 2) return nax::eval(a * 2.0f);
      else return a * 2.0f;
    }();
    auto h = [&] {
      if constexpr (Evaluated >= 1) return nax::eval(nax::tanh(nax::dot<in>(xe, scaled)));
      else return nax::tanh(nax::dot<in>(xe, scaled));
    }();
    return nax::sum(nax::tanh(h * b));
  };
  return nax::vmap<example>([&p, loss](const auto& xe) {
    return nax::grad<0, 1>([&](const auto& a, const auto& b) { return loss(a, b, xe); })(p.w1, p.w2);
  });
}

template <int Evaluated>
void per_example(benchmark::State& state) {
  auto& p = problem();
  auto step = per_example_step<Evaluated>(p);
  for (auto _ : state) {
    auto [g1, g2] = step(p.x);
    p.g1 = g1;
    p.g2 = g2;
    benchmark::DoNotOptimize(p.g1.data());
  }
  state.counters["examples/s"] =
      benchmark::Counter(double(n_examples) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void lazy(benchmark::State& state) { per_example<0>(state); }
void evaluated(benchmark::State& state) { per_example<1>(state); }
void member_loop(benchmark::State& state) { per_example<2>(state); }

// The three spellings give the same gradients (else the timings compare different work).
bool same_gradients() {
  auto& p = problem();
  nax::Array<float, example, in, hidden> want1 = std::get<0>(per_example_step<0>(p)(p.x));
  nax::Array<float, example, hidden> want2 = std::get<1>(per_example_step<0>(p)(p.x));
  auto close = [](const auto& a, const auto& b) {
    return nax::max(nax::abs(a - b)).item() <= 1e-5f * (1 + nax::max(nax::abs(b)).item());
  };
  nax::Array<float, example, in, hidden> a1 = std::get<0>(per_example_step<1>(p)(p.x)), b1 = std::get<0>(per_example_step<2>(p)(p.x));
  nax::Array<float, example, hidden> a2 = std::get<1>(per_example_step<1>(p)(p.x)), b2 = std::get<1>(per_example_step<2>(p)(p.x));
  return close(a1, want1) && close(b1, want1) && close(a2, want2) && close(b2, want2) && nax::max(nax::abs(want1)).item() > 0;
}

}  // namespace

BENCHMARK(lazy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(evaluated)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(member_loop)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  if (!same_gradients()) {
    std::fprintf(stderr, "bench_per_example_grad: the spellings' gradients differ\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
