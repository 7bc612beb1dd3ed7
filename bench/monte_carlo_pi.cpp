// Monte Carlo pi, 1000 keys x 10000 samples (the JAX program's benchmark), in samples per second:
// nax vmap over the keys (one fused pass), nax as a loop over the keys, a hand-written fused
// threefry loop (OpenMP over keys, simd over samples: the limit for these numbers on this
// machine), and through monte_carlo_pi_peers.py numpy (its default generator, vectorised) and
// JAX on the CPU (jit(vmap(...))). Every implementation but numpy draws the same numbers, so
// the estimates of pi agree to the last digit.
//
//   bench_monte_carlo_pi [--repetitions=N] [--no-peers] [--no-memory]
//   bench_monte_carlo_pi --only=nax_vmap|baseline   (one implementation; for /usr/bin/time -v)
//
// Peak memory: the program runs itself under /usr/bin/time -v twice, once running nax vmap
// and once with the sampling skipped (the baseline), and prints both maximum resident sizes:
// the difference is what the fused pass needs (no buffer of 10^7 numbers, which would be 40 MB
// per coordinate). The peers run with $NAX_BENCH_PYTHON if set, else python3 (JAX when it imports).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nax/nax.hpp>
#include <nax/random/random.hpp>

#if defined(_OPENMP)
#include <omp.h>
#endif

NAX_AXIS(batch);
NAX_AXIS(sample);

namespace {

namespace nr = nax::random;
using nax::index_t;

constexpr index_t n_batches = 1000, n_samples = 10000;
constexpr std::int64_t seed = 1768780800062;

// The example's function: one estimate from one key (a Key, or a key expression inside vmap).
auto monte_carlo_pi_single = [](const auto& key) {
  auto [key_x, key_y] = nr::split(key);
  auto x = nr::uniform<sample>(key_x, {n_samples});
  auto y = nr::uniform<sample>(key_y, {n_samples});
  return 4.0f * nax::mean(nax::square(x) + nax::square(y) <= 1.0f);
};

double nax_vmap(const nax::Array<std::uint64_t, batch>& keys) {
  nax::Array<double, batch> estimates = nax::vmap<batch>(monte_carlo_pi_single)(keys);
  return nax::mean(estimates).item();
}

double nax_loop(const nax::Array<std::uint64_t, batch>& keys) {
  double sum = 0;
  for (index_t i = 0; i < n_batches; ++i) sum += monte_carlo_pi_single(nr::wrap_key_data(keys(i))).item();
  return sum / n_batches;
}

// jax.random.uniform's float32 for counter i < 2^32 (counter high word 0), on plain scalars.
inline float uniform01(nr::Key key, std::uint32_t i) {
  std::uint32_t w0 = 0, w1 = i;
  nr::threefry2x32_inplace(key.k0, key.k1, w0, w1);
  return std::bit_cast<float>(((w0 ^ w1) >> 9) | 0x3f800000u) - 1.0f;
}

// What one would write by hand: OpenMP over the keys, simd over the samples, one pass.
double hand_loop(const nax::Array<std::uint64_t, batch>& keys) {
  const std::uint64_t* key_data = keys.data();
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (index_t b = 0; b < n_batches; ++b) {
    // (not a structured binding: clang 16 crashes on one used inside an omp simd loop)
    const auto keys_xy = nr::split(nr::wrap_key_data(key_data[b]));
    const auto key_x = std::get<0>(keys_xy), key_y = std::get<1>(keys_xy);
    int inside = 0;
#pragma omp simd reduction(+ : inside)
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(n_samples); ++i) {
      const float x = uniform01(key_x, i), y = uniform01(key_y, i);
      inside += x * x + y * y <= 1.0f ? 1 : 0;
    }
    sum += 4.0 * inside / n_samples;
  }
  return sum / n_batches;
}

struct implementation {
  const char* name;
  double (*run)(const nax::Array<std::uint64_t, batch>&);
};
const implementation implementations[] = {{"nax_vmap", nax_vmap}, {"nax_loop", nax_loop}, {"hand_loop", hand_loop}};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
// CPU seconds of the whole process (all threads): the work done, whatever else the machine runs.
double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct result {
  double seconds;      // wall, median
  double cpu_seconds;  // CPU time of all threads, median
  double pi;
};

// Runs `command`, returns its standard output.
std::string capture(const std::string& command) {
  std::string out;
  if (std::FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    pclose(pipe);
  }
  return out;
}

std::string directory_of_source() {
  std::string path = __FILE__;
  return path.substr(0, path.find_last_of('/') + 1);
}

// numpy and JAX: lines "peer NAME SECONDS CPU_SECONDS PI" from monte_carlo_pi_peers.py.
std::map<std::string, result> run_peers(int repetitions) {
  std::map<std::string, result> peers;
  const char* configured = std::getenv("NAX_BENCH_PYTHON");
  const std::string python = configured ? configured : "python3";
  const std::string script = directory_of_source() + "monte_carlo_pi_peers.py";
  if (capture(python + " -c 'import numpy; print(1)' 2>/dev/null").empty()) {
    std::printf("peers: %s cannot import numpy; numpy and JAX left out (set NAX_BENCH_PYTHON)\n", python.c_str());
    return peers;
  }
  const std::string out = capture(python + " " + script + " --repetitions=" + std::to_string(repetitions) + " 2>&1");
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    char name[64];
    double seconds = 0, cpu_seconds = 0, pi = 0;
    if (std::sscanf(line.c_str(), "peer %63s %lf %lf %lf", name, &seconds, &cpu_seconds, &pi) == 4)
      peers[name] = {seconds, cpu_seconds, pi};
    else if (!line.empty()) std::printf("peers: %s\n", line.c_str());
    start = end + 1;
  }
  return peers;
}

// Maximum resident set size (kB) of this program run with `arguments`, from /usr/bin/time -v.
long peak_rss_kb(const char* self, const std::string& arguments) {
  const std::string out = capture(std::string("/usr/bin/time -v ") + self + " " + arguments + " 2>&1 >/dev/null");
  const std::size_t at = out.find("Maximum resident set size (kbytes):");
  if (at == std::string::npos) return -1;
  return std::strtol(out.c_str() + at + std::strlen("Maximum resident set size (kbytes):"), nullptr, 10);
}

}  // namespace

int main(int argc, char** argv) {
  int repetitions = 15;
  bool peers = true, memory = true;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repetitions=", 14) == 0) repetitions = std::max(1, std::atoi(argv[i] + 14));
    else if (std::strcmp(argv[i], "--no-peers") == 0) peers = false;
    else if (std::strcmp(argv[i], "--no-memory") == 0) memory = false;
    else if (std::strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
    else {
      std::fprintf(stderr, "usage: %s [--repetitions=N] [--no-peers] [--no-memory] [--only=nax_vmap|baseline]\n",
                   argv[0]);
      return 2;
    }
  }

  nax::Array<std::uint64_t, batch> keys = nr::split<batch>(nr::key(seed), n_batches);
  if (!only.empty()) {  // one implementation, for the peak-memory measurement
    double pi = 0;
    for (int r = 0; r < repetitions; ++r) {
      if (only == "nax_vmap") pi += nax_vmap(keys);
      else if (only != "baseline") return 2;
    }
    std::printf("%s %.7f\n", only.c_str(), pi / repetitions);
    return 0;
  }

  int threads = 1;
#if defined(_OPENMP)
  threads = omp_get_max_threads();
#endif
  std::printf("Monte Carlo pi: %lld keys x %lld samples = %lld samples, %d threads, median of %d\n",
              static_cast<long long>(n_batches), static_cast<long long>(n_samples),
              static_cast<long long>(n_batches * n_samples), threads, repetitions);

  // Interleaved rounds in a shuffled order, so load from other processes spreads over all.
  std::map<std::string, std::vector<double>> times, cpu_times;
  std::map<std::string, double> estimates;
  for (const auto& impl : implementations) estimates[impl.name] = impl.run(keys);  // warm-up
  std::vector<const implementation*> order;
  for (const auto& impl : implementations) order.push_back(&impl);
  std::mt19937 shuffle(12345);
  for (int r = 0; r < repetitions; ++r) {
    std::shuffle(order.begin(), order.end(), shuffle);
    for (const implementation* impl : order) {
      const double t0 = now(), c0 = cpu_now();
      estimates[impl->name] = impl->run(keys);
      times[impl->name].push_back(now() - t0);
      cpu_times[impl->name].push_back(cpu_now() - c0);
    }
  }
  std::map<std::string, result> results;
  for (const auto& impl : implementations)
    results[impl.name] = {median(times[impl.name]), median(cpu_times[impl.name]), estimates[impl.name]};
  if (peers)
    for (const auto& [name, r] : run_peers(std::max(3, repetitions / 3))) results[name] = r;

  const double samples = static_cast<double>(n_batches * n_samples);
  const result& vmap = results["nax_vmap"];
  std::printf("%-10s %9s %11s %14s %9s %11s %14s %11s\n", "", "wall ms", "Msamples/s", "nax_vmap is", "cpu ms",
              "Msamples/s", "nax_vmap is", "pi");
  for (const auto& [name, r] : results)
    std::printf("%-10s %9.2f %11.1f %13.2fx %9.2f %11.1f %13.2fx %11.7f\n", name.c_str(), r.seconds * 1e3,
                samples / r.seconds / 1e6, r.seconds / vmap.seconds, r.cpu_seconds * 1e3,
                samples / r.cpu_seconds / 1e6, r.cpu_seconds / vmap.cpu_seconds, r.pi);
  auto ratio = [&](const char* name) {
    return results.count(name) ? std::to_string(results[name].seconds / vmap.seconds).substr(0, 4) + "x wall, " +
                                     std::to_string(results[name].cpu_seconds / vmap.cpu_seconds).substr(0, 4) + "x cpu"
                               : std::string("n/a");
  };
  std::printf("targets: nax_vmap >= 0.9x hand_loop: %s; >= 2x jax_cpu: %s; >= 2.5x numpy: %s\n",
              ratio("hand_loop").c_str(), ratio("jax_cpu").c_str(), ratio("numpy").c_str());

  if (memory) {
    const std::string reps = " --repetitions=3";
    const long with_sampling = peak_rss_kb(argv[0], "--only=nax_vmap" + reps);
    const long baseline = peak_rss_kb(argv[0], "--only=baseline" + reps);
    if (with_sampling < 0 || baseline < 0)
      std::printf("peak memory: /usr/bin/time -v not available\n");
    else
      std::printf("peak memory (max resident, /usr/bin/time -v): nax_vmap %ld kB, baseline without sampling %ld kB, "
                  "difference %ld kB (10^7 floats would be %ld kB)\n",
                  with_sampling, baseline, with_sampling - baseline,
                  static_cast<long>(samples * sizeof(float) / 1024));
  }
}
