// A deep training step through the tape (DESIGN 5b, docs/autodiff.md): an 8-layer tanh MLP,
// batch 1024, width 512, float, value_and_grad plus SGD, in two spellings of the same model:
// - loop: the layers are a std::array of structs and the forward pass is a C++ loop that
//   evaluates each layer's activation (8 recorded evaluations, then 8 entries backward);
// - lazy: the same network as one expression (built by a compile-time recursion), whose
//   adjoint grad builds statically.
// The target: the loop within 5% of the lazy expression. The same step in JAX
// (jit(value_and_grad)) is bench/jax_peers.py's deep_mlp case.
// Run: OMP_NUM_THREADS=2 build/host/bench/bench_deep_mlp --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <array>
#include <boost/hana/define_struct.hpp>
#include <cmath>

#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);

namespace {

constexpr nax::index_t n_batch = 1024, width = 512;
constexpr std::size_t depth = 8;

struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<float, in, hidden>, w), (nax::Array<float, hidden>, b));
};
using Layers = std::array<Layer, depth>;

template <class A>
void fill(A& a, float scale, float phase) {
  for (nax::index_t i = 0; i < a.size(); ++i) a.data()[i] = scale * std::sin(phase + 0.37f * float(i));
}

struct Model {
  nax::Array<float, batch, in> x{{n_batch, width}};
  Layers layers;
  Model() {
    fill(x, 1.f, 0.f);
    float phase = 1.f;
    for (auto& l : layers) {
      l.w = nax::Array<float, in, hidden>({width, width});
      l.b = nax::Array<float, hidden>({width});
      fill(l.w, 1.f / std::sqrt(float(width)), phase += 1.f);
      fill(l.b, 0.1f, phase += 1.f);
    }
  }
  void sgd(const Layers& g) {
    for (std::size_t l = 0; l < depth; ++l) {
      layers[l].w = layers[l].w - 0.01f * g[l].w;
      layers[l].b = layers[l].b - 0.01f * g[l].b;
    }
  }
};

template <std::size_t L, class H>
auto lazy_forward(const H& h, const Layers& ls) {
  if constexpr (L == depth) return h;
  else return lazy_forward<L + 1>(nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h, ls[L].w) + ls[L].b)), ls);
}

void BM_deep_mlp_loop(benchmark::State& state) {
  Model m;
  auto loss = [&](const Layers& ls) {
    nax::Array<float, batch, in> h = m.x;
    for (const auto& l : ls) h = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h, l.w) + l.b));
    return nax::mean(nax::square(std::move(h)));
  };
  for (auto _ : state) {
    auto [value, g] = nax::value_and_grad(loss)(m.layers);
    m.sgd(g);
    benchmark::DoNotOptimize(value.item());
  }
}

void BM_deep_mlp_lazy(benchmark::State& state) {
  Model m;
  auto loss = [&](const Layers& ls) { return nax::mean(nax::square(lazy_forward<0>(m.x, ls))); };
  for (auto _ : state) {
    auto [value, g] = nax::value_and_grad(loss)(m.layers);
    m.sgd(g);
    benchmark::DoNotOptimize(value.item());
  }
}

}  // namespace

BENCHMARK(BM_deep_mlp_loop)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_deep_mlp_lazy)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK_MAIN();
