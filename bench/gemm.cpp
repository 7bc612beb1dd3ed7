// GFLOP/s of the host GEMM: nax's built-in kernel, nax's CBLAS path and, when the build
// found one, the CBLAS library called directly (NAX_BENCH_HAVE_CBLAS). Square products,
// a transposed and a sliced operand, and a batch of small products.
// Run with OMP_NUM_THREADS set to the core count; the GFLOP/s counter uses wall time. At the
// end, numpy's and JAX's square products (bench/jax_peers.py gemm) run in the same program,
// when $NAX_JAX_PYTHON or python3 imports them (--no-jax leaves them out).
// For the cleanest comparison run each path in its own process (--benchmark_filter=builtin,
// =cblas_direct, =dispatched): OpenBLAS's worker threads can keep spinning for a while after a
// call and slow down whatever runs next in the same process.
#if defined(NAX_BENCH_HAVE_CBLAS) && !defined(NAX_USE_CBLAS)
#define NAX_USE_CBLAS
#endif
#include <nax/backend/host/gemm.hpp>

#include "support.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using nax::index_t;
namespace host = nax::detail::host;

template <class T>
std::vector<T> random_matrix(index_t elements, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(static_cast<std::size_t>(elements));
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

void report_flops(benchmark::State& state, double batch, double n) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * batch * n * n * n * static_cast<double>(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

enum class path { builtin, dispatched };

// Square n x n x n, all operands row-major.
template <class T, path Path>
void square(benchmark::State& state) {
  const index_t n = state.range(0);
  auto a = random_matrix<T>(n * n, 1), b = random_matrix<T>(n * n, 2), c = random_matrix<T>(n * n, 3);
  const host::gemm_operand<T> A{a.data(), 0, n, 1}, B{b.data(), 0, n, 1};
  const host::gemm_output<T> C{c.data(), 0, n, 1};
  for (auto _ : state) {
    if constexpr (Path == path::builtin)
      host::gemm_builtin<T>(1, n, n, n, T(1), A, B, T(0), C);
    else
      host::gemm<T>(1, n, n, n, T(1), A, B, T(0), C);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  report_flops(state, 1, static_cast<double>(n));
}

// A transposed (column-major view) and B a slice taking every other column of a wider matrix.
template <class T, path Path>
void transposed_and_sliced(benchmark::State& state) {
  const index_t n = state.range(0);
  auto a = random_matrix<T>(n * n, 1), b = random_matrix<T>(2 * n * n, 2), c = random_matrix<T>(n * n, 3);
  const host::gemm_operand<T> A{a.data(), 0, 1, n}, B{b.data(), 0, 2 * n, 2};
  const host::gemm_output<T> C{c.data(), 0, n, 1};
  for (auto _ : state) {
    if constexpr (Path == path::builtin)
      host::gemm_builtin<T>(1, n, n, n, T(1), A, B, T(0), C);
    else
      host::gemm<T>(1, n, n, n, T(1), A, B, T(0), C);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  report_flops(state, 1, static_cast<double>(n));
}

// 256 independent n x n x n products, contiguous batches.
template <class T, path Path>
void batched(benchmark::State& state) {
  const index_t n = state.range(0), batch = 256;
  auto a = random_matrix<T>(batch * n * n, 1), b = random_matrix<T>(batch * n * n, 2),
       c = random_matrix<T>(batch * n * n, 3);
  const host::gemm_operand<T> A{a.data(), n * n, n, 1}, B{b.data(), n * n, n, 1};
  const host::gemm_output<T> C{c.data(), n * n, n, 1};
  for (auto _ : state) {
    if constexpr (Path == path::builtin)
      host::gemm_builtin<T>(batch, n, n, n, T(1), A, B, T(0), C);
    else
      host::gemm<T>(batch, n, n, n, T(1), A, B, T(0), C);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  report_flops(state, static_cast<double>(batch), static_cast<double>(n));
}

#define NAX_GEMM_BENCH(fn, ...) BENCHMARK_TEMPLATE(fn, __VA_ARGS__)->UseRealTime()->Unit(benchmark::kMillisecond)

NAX_GEMM_BENCH(square, float, path::builtin)->Arg(512)->Arg(1024)->Arg(2048);
NAX_GEMM_BENCH(square, double, path::builtin)->Arg(1024);
NAX_GEMM_BENCH(transposed_and_sliced, float, path::builtin)->Arg(1024);
NAX_GEMM_BENCH(batched, float, path::builtin)->Arg(32)->Arg(64);

#if defined(NAX_BENCH_HAVE_CBLAS)
// The library itself, for the ratio the built-in kernel and the CBLAS path are judged by.
template <class T>
void cblas_direct(benchmark::State& state) {
  const index_t n = state.range(0);
  auto a = random_matrix<T>(n * n, 1), b = random_matrix<T>(n * n, 2), c = random_matrix<T>(n * n, 3);
  const int ld = static_cast<int>(n);
  for (auto _ : state) {
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ld, ld, ld, 1.0f, a.data(), ld, b.data(), ld, 0.0f,
                  c.data(), ld);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ld, ld, ld, 1.0, a.data(), ld, b.data(), ld, 0.0,
                  c.data(), ld);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  report_flops(state, 1, static_cast<double>(n));
}

NAX_GEMM_BENCH(cblas_direct, float)->Arg(512)->Arg(1024)->Arg(2048);
NAX_GEMM_BENCH(cblas_direct, double)->Arg(1024);
NAX_GEMM_BENCH(square, float, path::dispatched)->Arg(512)->Arg(1024)->Arg(2048);
NAX_GEMM_BENCH(square, double, path::dispatched)->Arg(1024);
NAX_GEMM_BENCH(transposed_and_sliced, float, path::dispatched)->Arg(1024);
NAX_GEMM_BENCH(batched, float, path::dispatched)->Arg(32)->Arg(64);
#endif

}  // namespace

int main(int argc, char** argv) {
  const bool jax = !nax_bench::flag_given(argc, argv, "--no-jax");
  std::vector<char*> args;
  for (int a = 0; a < argc; ++a)
    if (std::string(argv[a]) != "--no-jax") args.push_back(argv[a]);
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (jax) {
    std::printf("\nnumpy and JAX on the CPU, GFLOP/s (bench/jax_peers.py gemm):\n");
    std::fflush(stdout);
    const std::string cmd = nax_bench::jax_peers_command("gemm", "jax, numpy");
    if (std::system(cmd.c_str()) != 0) std::printf("(jax or numpy not found: skipped)\n");
  }
}
