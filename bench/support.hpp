// What the small benchmark programs share (bench_take, bench_scan, bench_sort, bench_gpt): a median timer
// and the command that runs bench/jax_peers.py with the python that imports JAX.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace nax_bench {

// Median seconds of one call of f over 5 repetitions of at least min_seconds each, after
// `warmups` calls.
template <class F>
double median_seconds(F&& f, double min_seconds = 0.3, int warmups = 1) {
  for (int w = 0; w < warmups; ++w) f();
  std::vector<double> times;
  for (int r = 0; r < 5; ++r) {
    int calls = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      f();
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < min_seconds);
    times.push_back(elapsed / calls);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Whether the command line holds `flag` (e.g. --no-jax).
inline bool flag_given(int argc, char** argv, const std::string& flag) {
  for (int a = 1; a < argc; ++a)
    if (argv[a] == flag) return true;
  return false;
}

// A shell command that runs bench/jax_peers.py <arguments> with $NAX_JAX_PYTHON (a venv's
// python), else python3, when that python imports `modules`; it fails (non-zero) otherwise.
inline std::string jax_peers_command(const std::string& arguments, const std::string& modules = "jax") {
  std::string script = __FILE__;
  script = script.substr(0, script.find_last_of('/') + 1) + "jax_peers.py";
  const char* env = std::getenv("NAX_JAX_PYTHON");
  const std::string python = env ? env : "python3";
  return python + " -c 'import " + modules + "' 2>/dev/null && " + python + " \"" + script + "\" " + arguments;
}

}  // namespace nax_bench
