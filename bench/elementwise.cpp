// Memory bandwidth of nax's fused elementwise pass against a hand-written OpenMP loop, Eigen
// Tensor (ThreadPoolDevice), xtensor (noalias, one thread) and numpy (numpy_peers.py, run at
// the end through python3 when it imports numpy). Cases on a 4096 x 16384 float array
// (2^26 elements): `a*b + c*d - e` with e contiguous, transposed (stored (col, row)) and
// sliced (every other column of a 4096 x 32768 array); and broadcasts a(r,c) * b(c), a(r,c) * b(r).
// GB/s counts the bytes the expression names (4 bytes per element per operand read or
// written, no write-allocate, broadcast vectors not counted): 24 per element for the fused
// cases, 8 for the broadcasts. The sliced case moves more (whole cache lines of e) but counts 24.
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_WAIT_POLICY=passive build/host/bench/bench_elementwise
// Prints Google Benchmark's table (medians of repetitions) and then a summary: each case, each
// implementation, the median GB/s and the ratio to the hand loop. --no-numpy skips numpy.
#define EIGEN_USE_THREADS
#include <nax/nax.hpp>

#include <benchmark/benchmark.h>

#if defined(NAX_BENCH_HAVE_EIGEN)
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#if defined(NAX_BENCH_HAVE_XTENSOR)
#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xview.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <omp.h>
#include <unistd.h>

namespace {

NAX_AXIS(row);
NAX_AXIS(col);

using nax::index_t;
constexpr index_t R = 4096, C = 16384, N = R * C;
// Repetitions of each benchmark (medians reported): NAX_BENCH_REPETITIONS, default 5.
int repetitions() {
  const char* text = std::getenv("NAX_BENCH_REPETITIONS");
  return text && std::atoi(text) > 0 ? std::atoi(text) : 5;
}

// Every operand, allocated and first-touched (in parallel, as the loops read them) once.
struct operands {
  nax::Array<float, row, col> a{{R, C}}, b{{R, C}}, c{{R, C}}, d{{R, C}}, e{{R, C}}, out{{R, C}};
  nax::Array<float, col, row> e_t{{C, R}};       // e stored transposed
  nax::Array<float, row, col> e_wide{{R, 2 * C}};  // e = every other column of this
  nax::Array<float, col> b_col{{C}};
  nax::Array<float, row> b_row{{R}};
  operands() {
    auto fill = [](float* p, index_t n, unsigned seed) {
#pragma omp parallel for schedule(static)
      for (index_t k = 0; k < n; ++k) p[k] = static_cast<float>((k * 2654435761u + seed) % 1000) * 1e-3f - 0.5f;
    };
    fill(a.data(), N, 1), fill(b.data(), N, 2), fill(c.data(), N, 3), fill(d.data(), N, 4);
    fill(e.data(), N, 5), fill(out.data(), N, 6), fill(e_wide.data(), 2 * N, 7), fill(b_col.data(), C, 8);
    fill(b_row.data(), R, 9);
    // e_t and e_wide hold the same values as e where the expressions read them.
#pragma omp parallel for schedule(static)
    for (index_t r = 0; r < R; ++r)
      for (index_t k = 0; k < C; ++k) e_wide.data()[r * 2 * C + 2 * k] = e.data()[r * C + k];
#pragma omp parallel for schedule(static)
    for (index_t k = 0; k < C; ++k)
      for (index_t r = 0; r < R; ++r) e_t.data()[k * R + r] = e.data()[r * C + k];
  }
};
operands& data() {
  static operands ops;
  return ops;
}

enum class kind { contiguous, transposed, sliced, broadcast_col, broadcast_row };
const char* kind_name(kind k) {
  switch (k) {
    case kind::contiguous: return "fused";
    case kind::transposed: return "fused_transposed";
    case kind::sliced: return "fused_sliced";
    case kind::broadcast_col: return "broadcast_col";
    case kind::broadcast_row: return "broadcast_row";
  }
  return "";
}
double bytes_per_element(kind k) { return k == kind::broadcast_col || k == kind::broadcast_row ? 8.0 : 24.0; }

// The expected value at (r, k), for checking what each implementation wrote.
float expected(const operands& o, kind k, index_t r, index_t j) {
  const index_t p = r * C + j;
  if (k == kind::broadcast_col) return o.a.data()[p] * o.b_col.data()[j];
  if (k == kind::broadcast_row) return o.a.data()[p] * o.b_row.data()[r];
  return o.a.data()[p] * o.b.data()[p] + o.c.data()[p] * o.d.data()[p] - o.e.data()[p];
}

// Checks a spread of elements, then poisons `out` so the next implementation cannot pass by
// leaving it alone.
void check_and_finish(benchmark::State& state, kind k) {
  operands& o = data();
  for (index_t s = 0; s < 4099; ++s) {
    index_t p = (s * 16411) % N, r = p / C, j = p % C;
    float want = expected(o, k, r, j), got = o.out.data()[p];
    if (std::abs(got - want) > 1e-5f * (1 + std::abs(want))) {
      state.SkipWithError("wrong result");
      break;
    }
  }
  std::fill_n(o.out.data(), 4096, -1e30f);
  state.counters["GB/s"] = benchmark::Counter(
      bytes_per_element(k) * static_cast<double>(N) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

// ---------------------------------------------------------------------------------------------
template <kind K>
void bm_nax(benchmark::State& state) {
  operands& o = data();
  for (auto _ : state) {
    if constexpr (K == kind::contiguous) o.out = o.a * o.b + o.c * o.d - o.e;
    if constexpr (K == kind::transposed) o.out = o.a * o.b + o.c * o.d - o.e_t;  // by name: a transpose
    if constexpr (K == kind::sliced) o.out = o.a * o.b + o.c * o.d - nax::slice<col>(o.e_wide, 0, 2 * C, 2);
    if constexpr (K == kind::broadcast_col) o.out = o.a * o.b_col;
    if constexpr (K == kind::broadcast_row) o.out = o.a * o.b_row;
    benchmark::ClobberMemory();
  }
  check_and_finish(state, K);
}

// What a careful programmer writes by hand: one parallel loop, vectorised inner loop; the
// transposed operand read in tiles, a cache line at a time.
template <kind K>
void bm_hand(benchmark::State& state) {
  operands& o = data();
  float* __restrict out = o.out.data();
  const float *a = o.a.data(), *b = o.b.data(), *c = o.c.data(), *d = o.d.data(), *e = o.e.data();
  const float *e_t = o.e_t.data(), *e_wide = o.e_wide.data(), *b_col = o.b_col.data(), *b_row = o.b_row.data();
  for (auto _ : state) {
    if constexpr (K == kind::contiguous) {
#pragma omp parallel for simd schedule(static)
      for (index_t p = 0; p < N; ++p) out[p] = a[p] * b[p] + c[p] * d[p] - e[p];
    } else if constexpr (K == kind::transposed) {
      // Tiles of 16 rows x 256 columns: e_t's block is copied (one cache line per column)
      // into a small buffer, then the rows run as contiguous loops.
      constexpr index_t tr = 16, tc = 256;
#pragma omp parallel for collapse(2) schedule(static)
      for (index_t r0 = 0; r0 < R; r0 += tr)
        for (index_t c0 = 0; c0 < C; c0 += tc) {
          alignas(64) float block[tr][tc];
          for (index_t j = 0; j < tc; ++j)
#pragma omp simd
            for (index_t r = 0; r < tr; ++r) block[r][j] = e_t[(c0 + j) * R + r0 + r];
          for (index_t r = 0; r < tr; ++r) {
            const index_t p = (r0 + r) * C + c0;
#pragma omp simd
            for (index_t j = 0; j < tc; ++j) out[p + j] = a[p + j] * b[p + j] + c[p + j] * d[p + j] - block[r][j];
          }
        }
    } else if constexpr (K == kind::sliced) {
#pragma omp parallel for schedule(static)
      for (index_t r = 0; r < R; ++r) {
        const index_t p = r * C;
#pragma omp simd
        for (index_t j = 0; j < C; ++j) out[p + j] = a[p + j] * b[p + j] + c[p + j] * d[p + j] - e_wide[2 * p + 2 * j];
      }
    } else if constexpr (K == kind::broadcast_col) {
#pragma omp parallel for schedule(static)
      for (index_t r = 0; r < R; ++r) {
#pragma omp simd
        for (index_t j = 0; j < C; ++j) out[r * C + j] = a[r * C + j] * b_col[j];
      }
    } else {
#pragma omp parallel for schedule(static)
      for (index_t r = 0; r < R; ++r) {
        const float s = b_row[r];
#pragma omp simd
        for (index_t j = 0; j < C; ++j) out[r * C + j] = a[r * C + j] * s;
      }
    }
    benchmark::ClobberMemory();
  }
  check_and_finish(state, K);
}

#if defined(NAX_BENCH_HAVE_EIGEN)
Eigen::ThreadPoolDevice& eigen_device() {
  static Eigen::ThreadPool pool(std::max(1, omp_get_max_threads()));
  static Eigen::ThreadPoolDevice device(&pool, std::max(1, omp_get_max_threads()));
  return device;
}
template <kind K>
void bm_eigen(benchmark::State& state) {
  operands& o = data();
  using map2 = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>>;
  using cmap2 = Eigen::TensorMap<const Eigen::Tensor<float, 2, Eigen::RowMajor>>;
  using cmap1 = Eigen::TensorMap<const Eigen::Tensor<float, 1, Eigen::RowMajor>>;
  using idx2 = Eigen::array<Eigen::Index, 2>;
  map2 out(o.out.data(), R, C);
  cmap2 a(o.a.data(), R, C), b(o.b.data(), R, C), c(o.c.data(), R, C), d(o.d.data(), R, C), e(o.e.data(), R, C);
  cmap2 e_t(o.e_t.data(), C, R), e_wide(o.e_wide.data(), R, 2 * C);
  cmap1 b_col(o.b_col.data(), C), b_row(o.b_row.data(), R);
  auto& dev = eigen_device();
  for (auto _ : state) {
    if constexpr (K == kind::contiguous) out.device(dev) = a * b + c * d - e;
    if constexpr (K == kind::transposed) out.device(dev) = a * b + c * d - e_t.shuffle(Eigen::array<int, 2>{1, 0});
    if constexpr (K == kind::sliced) out.device(dev) = a * b + c * d - e_wide.stride(idx2{1, 2});
    if constexpr (K == kind::broadcast_col) out.device(dev) = a * b_col.reshape(idx2{1, C}).broadcast(idx2{R, 1});
    if constexpr (K == kind::broadcast_row) out.device(dev) = a * b_row.reshape(idx2{R, 1}).broadcast(idx2{1, C});
    benchmark::ClobberMemory();
  }
  check_and_finish(state, K);
}
#endif

#if defined(NAX_BENCH_HAVE_XTENSOR)
template <kind K>
void bm_xtensor(benchmark::State& state) {
  operands& o = data();
  using shape2 = std::array<std::size_t, 2>;
  auto adapt2 = [](float* p, index_t rows, index_t cols) {
    return xt::adapt(p, static_cast<std::size_t>(rows * cols), xt::no_ownership(),
                     shape2{static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)});
  };
  auto out = adapt2(o.out.data(), R, C);
  auto a = adapt2(o.a.data(), R, C), b = adapt2(o.b.data(), R, C), c = adapt2(o.c.data(), R, C);
  auto d = adapt2(o.d.data(), R, C), e = adapt2(o.e.data(), R, C);
  auto e_t = adapt2(o.e_t.data(), C, R), e_wide = adapt2(o.e_wide.data(), R, 2 * C);
  auto b_col = xt::adapt(o.b_col.data(), C, xt::no_ownership(), std::array<std::size_t, 1>{C});
  auto b_row = xt::adapt(o.b_row.data(), R, xt::no_ownership(), std::array<std::size_t, 1>{R});
  for (auto _ : state) {
    if constexpr (K == kind::contiguous) xt::noalias(out) = a * b + c * d - e;
    if constexpr (K == kind::transposed) xt::noalias(out) = a * b + c * d - xt::transpose(e_t);
    if constexpr (K == kind::sliced) xt::noalias(out) = a * b + c * d - xt::view(e_wide, xt::all(), xt::range(0, 2 * C, 2));
    if constexpr (K == kind::broadcast_col) xt::noalias(out) = a * b_col;
    if constexpr (K == kind::broadcast_row) xt::noalias(out) = a * xt::view(b_row, xt::all(), xt::newaxis());
    benchmark::ClobberMemory();
  }
  check_and_finish(state, K);
}
#endif

// ---------------------------------------------------------------------------------------------
// The summary: medians of GB/s collected from the console reporter, numpy's from its script.
struct collecting_reporter : benchmark::ConsoleReporter {
  using ConsoleReporter::ConsoleReporter;
  std::map<std::string, double> median_gbps;  // "case/impl"
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs)
      if (run.aggregate_name == "median" && !run.error_occurred) {
        auto it = run.counters.find("GB/s");
        if (it != run.counters.end()) median_gbps[run.run_name.function_name] = it->second.value;
      }
  }
};

template <kind K>
void register_case() {
  const std::string name = kind_name(K);
  auto configure = [](benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(repetitions())->ReportAggregatesOnly(true);
  };
  configure(benchmark::RegisterBenchmark((name + "/hand").c_str(), bm_hand<K>));
  configure(benchmark::RegisterBenchmark((name + "/nax").c_str(), bm_nax<K>));
#if defined(NAX_BENCH_HAVE_EIGEN)
  configure(benchmark::RegisterBenchmark((name + "/eigen").c_str(), bm_eigen<K>));
#endif
#if defined(NAX_BENCH_HAVE_XTENSOR)
  configure(benchmark::RegisterBenchmark((name + "/xtensor_1thread").c_str(), bm_xtensor<K>));
#endif
}

// Runs numpy_peers.py (next to this source) and adds its "case/impl GB/s" lines.
void run_numpy(const std::string& group, const std::string& filter, std::map<std::string, double>& gbps) {
  std::string script = __FILE__;
  script = script.substr(0, script.find_last_of('/') + 1) + "numpy_peers.py";
  for (const char* python : {"python3", "/usr/bin/python3"}) {
    std::string command = std::string(python) + " -c 'import numpy' 2>/dev/null && " + python + " " + script + " " +
                          group + " '" + filter + "'";
    std::FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) continue;
    char line[512];
    bool any = false;
    while (std::fgets(line, sizeof line, pipe)) {
      std::fputs(line, stdout);
      std::istringstream in(line);
      std::string name;
      double value;
      if (in >> name >> value) gbps[name] = value, any = true;
    }
    pclose(pipe);
    if (any) return;
  }
  std::puts("numpy: no python3 with numpy found; numpy rows left out");
}

void print_summary(const std::map<std::string, double>& gbps) {
  std::printf("\n| case | implementation | GB/s (median) | vs hand loop |\n|---|---|---:|---:|\n");
  std::vector<std::string> cases;
  for (const auto& [name, v] : gbps) {
    std::string c = name.substr(0, name.find('/'));
    if (std::find(cases.begin(), cases.end(), c) == cases.end()) cases.push_back(c);
  }
  for (const std::string& c : cases) {
    auto hand = gbps.find(c + "/hand");
    for (const char* impl : {"hand", "nax", "eigen", "xtensor_1thread", "numpy_1thread", "numpy_expr_1thread"}) {
      auto it = gbps.find(c + "/" + impl);
      if (it == gbps.end()) continue;
      if (hand != gbps.end())
        std::printf("| %s | %s | %.1f | %.2fx |\n", c.c_str(), impl, it->second, it->second / hand->second);
      else
        std::printf("| %s | %s | %.1f | |\n", c.c_str(), impl, it->second);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Repetitions run interleaved in random order, so that load from other processes spreads
  // over every implementation rather than landing on one (a later flag overrides this).
  std::vector<char*> args{argv[0], const_cast<char*>("--benchmark_enable_random_interleaving=true")};
  bool numpy = true;
  std::string filter = ".";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-numpy") == 0) {
      numpy = false;
      continue;
    }
    if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) filter = argv[i] + 19;
    args.push_back(argv[i]);
  }
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  std::printf("threads: %d (OMP_NUM_THREADS=%s OMP_PROC_BIND=%s OMP_WAIT_POLICY=%s)\n", omp_get_max_threads(),
              std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "unset",
              std::getenv("OMP_PROC_BIND") ? std::getenv("OMP_PROC_BIND") : "unset",
              std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "unset");
  register_case<kind::contiguous>();
  register_case<kind::transposed>();
  register_case<kind::sliced>();
  register_case<kind::broadcast_col>();
  register_case<kind::broadcast_row>();
  // Colours only on a terminal (this reporter does not see --benchmark_color).
  collecting_reporter reporter(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_Defaults
                                                      : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::fflush(stdout);
  if (numpy) run_numpy("elementwise", filter, reporter.median_gbps);
  print_summary(reporter.median_gbps);
}
