// A training step (forward, backward, update) with nax::value_and_grad against the same step
// written by hand in plain C++ loops (issue 4: nax >= 0.9x of the hand-written step):
// - the JAX program's linear model dot(x, w) + b, squared loss, batch 4096, 3 features, 1 output;
// - a two-layer MLP tanh(x w1 + b1) w2 + b2, batch 4096, width 1024 (in = hidden = 1024),
//   16 outputs, squared loss.
// The hand-written MLP step uses cache-friendly i-k-j loops (vectorised by the compiler) and
// OpenMP over the batch, not a tuned GEMM; nax uses its blocked GEMM.
// Run: OMP_NUM_THREADS=2 build/bench/bench/bench_train_step --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);
NAX_AXIS(out);

namespace {

constexpr nax::index_t n_batch = 4096;

template <class A>
void fill(A& a, float scale, float phase) {
  for (nax::index_t i = 0; i < a.size(); ++i) a.data()[i] = scale * std::sin(phase + 0.37f * float(i));
}

// ---- linear model --------------------------------------------------------------------------
struct Linear {
  nax::Array<float, batch, in> x{{n_batch, 3}};
  nax::Array<float, batch, out> y{{n_batch, 1}};
  nax::Array<float, in, out> w{{3, 1}};
  nax::Array<float, out> b{{1}};
  Linear() {
    fill(x, 1.f, 0.f);
    fill(y, 1.f, 1.f);
    fill(w, 0.5f, 2.f);
  }
};

void BM_linear_nax(benchmark::State& state) {
  Linear p;
  auto loss_fn = [](const auto& params, const auto& xs, const auto& ys) {
    return nax::mean(nax::square(nax::dot<in>(xs, std::get<0>(params)) + std::get<1>(params) - ys));
  };
  for (auto _ : state) {
    auto params = std::tie(p.w, p.b);
    auto [loss, g] = nax::value_and_grad(loss_fn)(params, p.x, p.y);
    p.w = p.w - 0.01f * std::get<0>(g);
    p.b = p.b - 0.01f * std::get<1>(g);
    benchmark::DoNotOptimize(loss.item());
  }
}

void BM_linear_by_hand(benchmark::State& state) {
  Linear p;
  const nax::index_t n = n_batch;
  for (auto _ : state) {
    const float* x = p.x.data();
    const float* y = p.y.data();
    float* w = p.w.data();
    float* b = p.b.data();
    float gw[3] = {0, 0, 0}, gb = 0, loss = 0;
    for (nax::index_t i = 0; i < n; ++i) {
      float r = x[3 * i] * w[0] + x[3 * i + 1] * w[1] + x[3 * i + 2] * w[2] + b[0] - y[i];
      loss += r * r;
      float c = 2.f * r / float(n);
      gw[0] += c * x[3 * i];
      gw[1] += c * x[3 * i + 1];
      gw[2] += c * x[3 * i + 2];
      gb += c;
    }
    for (int k = 0; k < 3; ++k) w[k] -= 0.01f * gw[k];
    b[0] -= 0.01f * gb;
    benchmark::DoNotOptimize(loss);
  }
}

// ---- two-layer MLP -------------------------------------------------------------------------
constexpr nax::index_t n_in = 1024, n_hidden = 1024, n_out = 16;

struct Mlp {
  nax::Array<float, batch, in> x{{n_batch, n_in}};
  nax::Array<float, batch, out> y{{n_batch, n_out}};
  nax::Array<float, in, hidden> w1{{n_in, n_hidden}};
  nax::Array<float, hidden> b1{{n_hidden}};
  nax::Array<float, hidden, out> w2{{n_hidden, n_out}};
  nax::Array<float, out> b2{{n_out}};
  Mlp() {
    fill(x, 1.f, 0.f);
    fill(y, 1.f, 1.f);
    fill(w1, 0.03f, 2.f);
    fill(w2, 0.03f, 3.f);
  }
};

void BM_mlp_nax(benchmark::State& state) {
  Mlp p;
  auto loss_fn = [](const auto& q, const auto& xs, const auto& ys) {
    auto h = nax::tanh(nax::dot<in>(xs, std::get<0>(q)) + std::get<1>(q));
    return nax::mean(nax::square(nax::dot<hidden>(h, std::get<2>(q)) + std::get<3>(q) - ys));
  };
  for (auto _ : state) {
    auto params = std::tie(p.w1, p.b1, p.w2, p.b2);
    auto [loss, g] = nax::value_and_grad(loss_fn)(params, p.x, p.y);
    p.w1 = p.w1 - 0.01f * std::get<0>(g);
    p.b1 = p.b1 - 0.01f * std::get<1>(g);
    p.w2 = p.w2 - 0.01f * std::get<2>(g);
    p.b2 = p.b2 - 0.01f * std::get<3>(g);
    benchmark::DoNotOptimize(loss.item());
  }
}

void BM_mlp_by_hand(benchmark::State& state) {
  Mlp p;
  const nax::index_t B = n_batch, I = n_in, H = n_hidden, O = n_out;
  std::vector<float> h(B * H), dh(B * H), r(B * O), gw1(I * H), gb1(H), gw2(H * O), gb2(O);
  for (auto _ : state) {
    const float *x = p.x.data(), *y = p.y.data();
    float *w1 = p.w1.data(), *b1 = p.b1.data(), *w2 = p.w2.data(), *b2 = p.b2.data();
    // forward
#pragma omp parallel for
    for (nax::index_t i = 0; i < B; ++i) {
      float* hi = &h[i * H];
      for (nax::index_t j = 0; j < H; ++j) hi[j] = b1[j];
      for (nax::index_t k = 0; k < I; ++k) {
        const float xk = x[i * I + k];
        const float* wk = &w1[k * H];
        for (nax::index_t j = 0; j < H; ++j) hi[j] += xk * wk[j];
      }
      for (nax::index_t j = 0; j < H; ++j) hi[j] = std::tanh(hi[j]);
      float* ri = &r[i * O];
      for (nax::index_t o = 0; o < O; ++o) ri[o] = b2[o] - y[i * O + o];
      for (nax::index_t j = 0; j < H; ++j)
        for (nax::index_t o = 0; o < O; ++o) ri[o] += hi[j] * w2[j * O + o];
    }
    double loss = 0;
    for (nax::index_t q = 0; q < B * O; ++q) loss += double(r[q]) * r[q];
    loss /= double(B * O);
    const float c = 2.f / float(B * O);
    // backward: dr = c r; gw2 = h^T dr; gb2 = sum dr; dh = (dr w2^T) (1 - h^2); gw1 = x^T dh; gb1 = sum dh
#pragma omp parallel for
    for (nax::index_t i = 0; i < B; ++i) {
      float* dhi = &dh[i * H];
      const float* ri = &r[i * O];
      for (nax::index_t j = 0; j < H; ++j) {
        float s = 0;
        for (nax::index_t o = 0; o < O; ++o) s += ri[o] * w2[j * O + o];
        const float hj = h[i * H + j];
        dhi[j] = c * s * (1.f - hj * hj);
      }
    }
#pragma omp parallel for
    for (nax::index_t j = 0; j < H; ++j) {
      float g[n_out] = {};
      for (nax::index_t i = 0; i < B; ++i)
        for (nax::index_t o = 0; o < O; ++o) g[o] += h[i * H + j] * c * r[i * O + o];
      for (nax::index_t o = 0; o < O; ++o) gw2[j * O + o] = g[o];
    }
    for (nax::index_t o = 0; o < O; ++o) {
      float s = 0;
      for (nax::index_t i = 0; i < B; ++i) s += c * r[i * O + o];
      gb2[o] = s;
    }
#pragma omp parallel for
    for (nax::index_t k = 0; k < I; ++k) {
      float* gk = &gw1[k * H];
      for (nax::index_t j = 0; j < H; ++j) gk[j] = 0;
      for (nax::index_t i = 0; i < B; ++i) {
        const float xk = x[i * I + k];
        const float* dhi = &dh[i * H];
        for (nax::index_t j = 0; j < H; ++j) gk[j] += xk * dhi[j];
      }
    }
    for (nax::index_t j = 0; j < H; ++j) {
      float s = 0;
      for (nax::index_t i = 0; i < B; ++i) s += dh[i * H + j];
      gb1[j] = s;
    }
    // update
    for (nax::index_t q = 0; q < I * H; ++q) w1[q] -= 0.01f * gw1[q];
    for (nax::index_t q = 0; q < H; ++q) b1[q] -= 0.01f * gb1[q];
    for (nax::index_t q = 0; q < H * O; ++q) w2[q] -= 0.01f * gw2[q];
    for (nax::index_t q = 0; q < O; ++q) b2[q] -= 0.01f * gb2[q];
    benchmark::DoNotOptimize(loss);
  }
}

}  // namespace

BENCHMARK(BM_linear_nax)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linear_by_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_mlp_nax)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_mlp_by_hand)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
