// A recurrence through the tape (DESIGN 5b, docs/autodiff.md): a tanh RNN over 64 steps,
// batch 256, hidden width 256, input width 128, float, value_and_grad of the mean squared last
// state plus SGD. The forward pass is a C++ for loop that evaluates the state at every step
// (64 recorded evaluations, 64 entries backward). The same model in JAX is a jit of
// value_and_grad over lax.scan: bench/jax_peers.py's rnn case (the same fill and phases).
// Run: OMP_NUM_THREADS=1 build/host/bench/bench_rnn
#include <benchmark/benchmark.h>

#include <boost/hana/define_struct.hpp>
#include <cmath>

#include <nax/nax.hpp>

NAX_AXIS(step);
NAX_AXIS(batch);
NAX_AXIS(feat);
NAX_AXIS(in);
NAX_AXIS(hidden);

namespace {

constexpr nax::index_t steps = 64, n_batch = 256, width = 256, n_feat = 128;

struct Cell {
  BOOST_HANA_DEFINE_STRUCT(Cell, (nax::Array<float, in, hidden>, w), (nax::Array<float, feat, hidden>, u),
                           (nax::Array<float, hidden>, b));
};

template <class A>
void fill(A& a, float scale, float phase) {
  for (nax::index_t i = 0; i < a.size(); ++i) a.data()[i] = scale * std::sin(phase + 0.37f * float(i));
}

void BM_rnn_loop(benchmark::State& state) {
  nax::Array<float, step, batch, feat> xs({steps, n_batch, n_feat});
  fill(xs, 1.f, 0.f);
  Cell cell{nax::Array<float, in, hidden>({width, width}), nax::Array<float, feat, hidden>({n_feat, width}),
            nax::Array<float, hidden>({width})};
  fill(cell.w, 1.f / std::sqrt(float(width)), 2.f);
  fill(cell.u, 1.f / std::sqrt(float(n_feat)), 3.f);
  fill(cell.b, 0.1f, 4.f);
  auto loss = [&](const Cell& c) {
    nax::Array<float, batch, in> h = nax::zeros<float, batch, in>(n_batch, width);
    for (nax::index_t t = 0; t < steps; ++t) {
      auto x_t = nax::sum<step>(nax::slice<step>(xs, t, t + 1));  // the step's inputs (a constant)
      h = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h, c.w) + nax::dot<feat>(x_t, c.u) + c.b));
    }
    return nax::mean(nax::square(std::move(h)));
  };
  for (auto _ : state) {
    auto [value, g] = nax::value_and_grad(loss)(cell);
    cell.w = cell.w - 0.01f * g.w;
    cell.u = cell.u - 0.01f * g.u;
    cell.b = cell.b - 0.01f * g.b;
    benchmark::DoNotOptimize(value.item());
  }
}

}  // namespace

BENCHMARK(BM_rnn_loop)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK_MAIN();
