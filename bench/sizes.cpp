// GB/s against array size: nax's fused elementwise pass `a*b + c*d - e` and its sum over the
// contiguous axis, beside the same work written by hand (OpenMP + simd) and a plain copy
// `b[i] = a[i]`, on float arrays of 2^10 to 2^26 elements (1024 columns; rows = n / 1024, one
// row below 1024 elements). Small arrays live in cache and show per-call overhead (the
// parallel region, the expression's setup); large ones show memory bandwidth.
// bench/run_all.py draws GB/s against size from this program, with the machine's copy
// bandwidth as a line.
// GB/s counts the bytes named: 24 per element for the fused pass (five reads, one write), 4 for
// the sum (one read), 8 for the copy.
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_WAIT_POLICY=passive build/host/bench/bench_sizes
#include <nax/nax.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

NAX_AXIS(row);
NAX_AXIS(col);
using nax::index_t;

constexpr int min_log2 = 10, max_log2 = 26;

index_t columns_for(index_t n) { return n < 1024 ? n : 1024; }

struct operands {
  index_t rows, cols;
  nax::Array<float, row, col> a, b, c, d, e, out;
  explicit operands(index_t n)
      : rows(n / columns_for(n)), cols(columns_for(n)), a({rows, cols}), b({rows, cols}), c({rows, cols}),
        d({rows, cols}), e({rows, cols}), out({rows, cols}) {
    unsigned seed = 1;
    for (auto* x : {&a, &b, &c, &d, &e}) {
      float* p = x->data();
#pragma omp parallel for schedule(static)
      for (index_t k = 0; k < n; ++k) p[k] = static_cast<float>((k * 2654435761u + seed) % 1000) * 1e-3f - 0.5f;
      ++seed;
    }
  }
};

// One set of operands at a time (the largest is 1.5 GiB).
operands& data(index_t n) {
  static std::unique_ptr<operands> current;
  if (!current || current->rows * current->cols != n) {
    current.reset();
    current = std::make_unique<operands>(n);
  }
  return *current;
}

void finish(benchmark::State& state, double bytes_per_element, bool ok) {
  if (!ok) state.SkipWithError("wrong result");
  state.counters["GB/s"] = benchmark::Counter(
      bytes_per_element * static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
  state.counters["elements"] = static_cast<double>(state.range(0));
}

bool fused_ok(const operands& o) {
  const index_t n = o.rows * o.cols;
  for (index_t s = 0; s < 257; ++s) {
    const index_t p = (s * 16411) % n;
    const float want = o.a.data()[p] * o.b.data()[p] + o.c.data()[p] * o.d.data()[p] - o.e.data()[p];
    if (std::abs(o.out.data()[p] - want) > 1e-5f * (1 + std::abs(want))) return false;
  }
  return true;
}

void fused_nax(benchmark::State& state) {
  operands& o = data(state.range(0));
  for (auto _ : state) {
    o.out = o.a * o.b + o.c * o.d - o.e;
    benchmark::ClobberMemory();
  }
  finish(state, 24, fused_ok(o));
}

// The hand loops go parallel from parallel_from elements (nax's threshold); below it they
// are plain loops, with no OpenMP construct (an `if` clause still enters the runtime).
constexpr index_t parallel_from = index_t{1} << 15;

void fused_hand(benchmark::State& state) {
  operands& o = data(state.range(0));
  const index_t n = state.range(0);
  for (auto _ : state) {
    const float *a = o.a.data(), *b = o.b.data(), *c = o.c.data(), *d = o.d.data(), *e = o.e.data();
    float* out = o.out.data();
    if (n >= parallel_from) {
#pragma omp parallel for simd schedule(static)
      for (index_t k = 0; k < n; ++k) out[k] = a[k] * b[k] + c[k] * d[k] - e[k];
    } else {
#pragma omp simd
      for (index_t k = 0; k < n; ++k) out[k] = a[k] * b[k] + c[k] * d[k] - e[k];
    }
    benchmark::ClobberMemory();
  }
  finish(state, 24, fused_ok(o));
}

bool sum_ok(const operands& o) {
  for (index_t r = 0; r < o.rows; r += 1 + o.rows / 7) {
    double want = 0;
    for (index_t k = 0; k < o.cols; ++k) want += o.a.data()[r * o.cols + k];
    if (std::abs(o.out.data()[r] - want) > 1e-3 * (1 + std::abs(want))) return false;
  }
  return true;
}

void sum_nax(benchmark::State& state) {
  operands& o = data(state.range(0));
  nax::ArrayView<float, row> sums(o.out.data(), {o.rows});
  for (auto _ : state) {
    sums.assign(nax::sum<col>(o.a));
    benchmark::ClobberMemory();
  }
  finish(state, 4, sum_ok(o));
}

void sum_hand(benchmark::State& state) {
  operands& o = data(state.range(0));
  const index_t rows = o.rows, cols = o.cols;
  auto row_sum = [&](const float* a, index_t r) {
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (index_t k = 0; k < cols; ++k) s += a[r * cols + k];
    return s;
  };
  for (auto _ : state) {
    const float* a = o.a.data();
    float* out = o.out.data();
    if (rows * cols >= parallel_from) {
#pragma omp parallel for schedule(static)
      for (index_t r = 0; r < rows; ++r) out[r] = row_sum(a, r);
    } else {
      for (index_t r = 0; r < rows; ++r) out[r] = row_sum(a, r);
    }
    benchmark::ClobberMemory();
  }
  finish(state, 4, sum_ok(o));
}

void copy_hand(benchmark::State& state) {
  operands& o = data(state.range(0));
  const index_t n = state.range(0);
  for (auto _ : state) {
    const float* a = o.a.data();
    float* out = o.out.data();
    if (n >= parallel_from) {
#pragma omp parallel for simd schedule(static)
      for (index_t k = 0; k < n; ++k) out[k] = a[k];
    } else {
#pragma omp simd
      for (index_t k = 0; k < n; ++k) out[k] = a[k];
    }
    benchmark::ClobberMemory();
  }
  finish(state, 8, o.out.data()[n / 2] == o.a.data()[n / 2]);
}

int repetitions() {
  const char* text = std::getenv("NAX_BENCH_REPETITIONS");
  return text && std::atoi(text) > 0 ? std::atoi(text) : 3;
}

}  // namespace

int main(int argc, char** argv) {
  const std::pair<const char*, void (*)(benchmark::State&)> cases[] = {
      {"fused/nax", fused_nax}, {"fused/hand", fused_hand}, {"sum/nax", sum_nax},
      {"sum/hand", sum_hand},   {"copy/hand", copy_hand}};
  // Sizes outermost, so each size's operands are made once for all five.
  for (int k = min_log2; k <= max_log2; k += 2)
    for (const auto& [name, fn] : cases)
      benchmark::RegisterBenchmark(name, fn)
          ->Arg(index_t{1} << k)
          ->Repetitions(repetitions())
          ->ReportAggregatesOnly(true)
          ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
