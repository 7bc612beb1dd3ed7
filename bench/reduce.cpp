// Memory bandwidth of nax's reductions against hand-written OpenMP loops, Eigen Tensor
// (ThreadPoolDevice) and numpy (numpy_peers.py, run at the end through python3 when it
// imports numpy): sum, max and mean of a 4096 x 16384 float array (2^26 elements) over either
// axis. "contiguous" removes the contiguous axis (one result per row); "outer" removes the
// outer axis (one result per column). GB/s counts 4 bytes read per element.
// The hand loops are what a careful programmer writes: 32 independent accumulators along a
// row for the contiguous axis (one accumulator keeps the compiler to a strict order, about a
// quarter of the bandwidth); per-thread partial rows, combined at the end, for the outer axis.
// max propagates NaN in every implementation but Eigen's and numpy's (nax's semantics, as jnp.max).
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_WAIT_POLICY=passive build/host/bench/bench_reduce
// Prints Google Benchmark's table (medians of repetitions) and then a summary: each case, each
// implementation, the median GB/s and the ratio to the hand loop. --no-numpy skips numpy.
#define EIGEN_USE_THREADS
#include <nax/nax.hpp>

#include <benchmark/benchmark.h>

#if defined(NAX_BENCH_HAVE_EIGEN)
#include <unsupported/Eigen/CXX11/Tensor>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
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

struct operands {
  nax::Array<float, row, col> x{{R, C}};
  nax::Array<float, row> per_row{{R}};
  nax::Array<float, col> per_col{{C}};
  operands() {
    float* p = x.data();
#pragma omp parallel for schedule(static)
    for (index_t k = 0; k < N; ++k) p[k] = static_cast<float>((k * 2654435761u) % 1000) * 1e-3f;
  }
};
operands& data() {
  static operands ops;
  return ops;
}

enum class op { sum, max, mean };
enum class axis { contiguous, outer };  // the axis removed

const char* case_name(op o, axis a) {
  static const char* names[3][2] = {{"sum_contiguous", "sum_outer"},
                                    {"max_contiguous", "max_outer"},
                                    {"mean_contiguous", "mean_outer"}};
  return names[static_cast<int>(o)][static_cast<int>(a)];
}

template <op O>
inline float combine(float acc, float v) {
  if constexpr (O == op::max) return (acc != acc || acc > v) ? acc : v;
  else return acc + v;
}
template <op O>
constexpr float identity() {
  return O == op::max ? -INFINITY : 0.0f;
}

// Checks every result against a double-precision (sum, mean) or exact (max) reference.
template <op O, axis A>
void check_and_finish(benchmark::State& state) {
  operands& o = data();
  const float* x = o.x.data();
  const float* got = A == axis::contiguous ? o.per_row.data() : o.per_col.data();
  const index_t outputs = A == axis::contiguous ? R : C, count = A == axis::contiguous ? C : R;
  for (index_t k = 0; k < outputs; k += 7) {
    double want = O == op::max ? -INFINITY : 0.0;
    for (index_t m = 0; m < count; ++m) {
      double v = A == axis::contiguous ? x[k * C + m] : x[m * C + k];
      want = O == op::max ? std::max(want, v) : want + v;
    }
    if (O == op::mean) want /= static_cast<double>(count);
    if (std::abs(got[k] - want) > 1e-3 * (1 + std::abs(want))) {
      state.SkipWithError("wrong result");
      break;
    }
  }
  std::fill_n(o.per_row.data(), R, -1.0f);
  std::fill_n(o.per_col.data(), C, -1.0f);
  state.counters["GB/s"] = benchmark::Counter(
      4.0 * static_cast<double>(N) * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// ---------------------------------------------------------------------------------------------
template <op O, axis A>
void bm_nax(benchmark::State& state) {
  operands& o = data();
  for (auto _ : state) {
    if constexpr (A == axis::contiguous) {
      if constexpr (O == op::sum) o.per_row = nax::sum<col>(o.x);
      if constexpr (O == op::max) o.per_row = nax::max<col>(o.x);
      if constexpr (O == op::mean) o.per_row = nax::mean<col>(o.x);
    } else {
      if constexpr (O == op::sum) o.per_col = nax::sum<row>(o.x);
      if constexpr (O == op::max) o.per_col = nax::max<row>(o.x);
      if constexpr (O == op::mean) o.per_col = nax::mean<row>(o.x);
    }
    benchmark::ClobberMemory();
  }
  check_and_finish<O, A>(state);
}

template <op O, axis A>
void bm_hand(benchmark::State& state) {
  operands& o = data();
  const float* x = o.x.data();
  const int threads = omp_get_max_threads();
  std::vector<float> partial(static_cast<std::size_t>(threads) * C);
  for (auto _ : state) {
    if constexpr (A == axis::contiguous) {
      float* out = o.per_row.data();
#pragma omp parallel for schedule(static)
      for (index_t r = 0; r < R; ++r) {
        constexpr int K = 32;  // independent accumulators: four AVX2 registers
        const float* p = x + r * C;
        float acc[K];
        for (int u = 0; u < K; ++u) acc[u] = identity<O>();
        index_t j = 0;
        for (; j + K <= C; j += K)
          for (int u = 0; u < K; ++u) acc[u] = combine<O>(acc[u], p[j + u]);
        float total = identity<O>();
        for (int u = 0; u < K; ++u) total = combine<O>(total, acc[u]);
        for (; j < C; ++j) total = combine<O>(total, p[j]);
        out[r] = O == op::mean ? total * (1.0f / C) : total;
      }
    } else {
      float* out = o.per_col.data();
#pragma omp parallel
      {
        float* __restrict mine = partial.data() + static_cast<std::size_t>(omp_get_thread_num()) * C;
        std::fill_n(mine, C, identity<O>());
#pragma omp for schedule(static)
        for (index_t r = 0; r < R; ++r) {
          const float* __restrict p = x + r * C;
#pragma omp simd
          for (index_t j = 0; j < C; ++j) mine[j] = combine<O>(mine[j], p[j]);
        }
#pragma omp for schedule(static)
        for (index_t j = 0; j < C; ++j) {
          float total = partial[static_cast<std::size_t>(j)];
          for (int t = 1; t < omp_get_num_threads(); ++t) total = combine<O>(total, partial[static_cast<std::size_t>(t) * C + j]);
          out[j] = O == op::mean ? total * (1.0f / R) : total;
        }
      }
    }
    benchmark::ClobberMemory();
  }
  check_and_finish<O, A>(state);
}

#if defined(NAX_BENCH_HAVE_EIGEN)
Eigen::ThreadPoolDevice& eigen_device() {
  static Eigen::ThreadPool pool(std::max(1, omp_get_max_threads()));
  static Eigen::ThreadPoolDevice device(&pool, std::max(1, omp_get_max_threads()));
  return device;
}
template <op O, axis A>
void bm_eigen(benchmark::State& state) {
  operands& o = data();
  Eigen::TensorMap<const Eigen::Tensor<float, 2, Eigen::RowMajor>> x(o.x.data(), R, C);
  Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> out(
      A == axis::contiguous ? o.per_row.data() : o.per_col.data(), A == axis::contiguous ? R : C);
  const Eigen::array<int, 1> dims{A == axis::contiguous ? 1 : 0};
  auto& dev = eigen_device();
  for (auto _ : state) {
    if constexpr (O == op::sum) out.device(dev) = x.sum(dims);
    if constexpr (O == op::max) out.device(dev) = x.maximum(dims);
    if constexpr (O == op::mean) out.device(dev) = x.mean(dims);
    benchmark::ClobberMemory();
  }
  check_and_finish<O, A>(state);
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

template <op O, axis A>
void register_case() {
  const std::string name = case_name(O, A);
  auto configure = [](benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(repetitions())->ReportAggregatesOnly(true);
  };
  configure(benchmark::RegisterBenchmark((name + "/hand").c_str(), bm_hand<O, A>));
  configure(benchmark::RegisterBenchmark((name + "/nax").c_str(), bm_nax<O, A>));
#if defined(NAX_BENCH_HAVE_EIGEN)
  configure(benchmark::RegisterBenchmark((name + "/eigen").c_str(), bm_eigen<O, A>));
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
    for (const char* impl : {"hand", "nax", "eigen", "numpy_1thread"}) {
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
  register_case<op::sum, axis::contiguous>();
  register_case<op::sum, axis::outer>();
  register_case<op::max, axis::contiguous>();
  register_case<op::max, axis::outer>();
  register_case<op::mean, axis::contiguous>();
  register_case<op::mean, axis::outer>();
  // Colours only on a terminal (this reporter does not see --benchmark_color).
  collecting_reporter reporter(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_Defaults
                                                      : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::fflush(stdout);
  if (numpy) run_numpy("reduce", filter, reporter.median_gbps);
  print_summary(reporter.median_gbps);
}
