// The JAX program's Monte Carlo estimate of pi: 1000 keys x 10000 samples, once as a loop over the keys
// and once as vmap over them (one fused pass over the 10^7 samples; the random numbers are
// generated where they are consumed and never stored). Same keys, same numbers as JAX.
// --cuda: the same vmapped program over device keys, one kernel on the GPU. The CUDA build is
// monte_carlo_pi_cuda (this file compiled by nvcc: examples/CMakeLists.txt); without a GPU it
// says so and exits 0.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>

#include <nax/nax.hpp>
#include <nax/random/random.hpp>
#if defined(__CUDACC__)
#include <nax/cuda.hpp>
#endif

NAX_AXIS(batch);
NAX_AXIS(sample);

using seconds_clock = std::chrono::steady_clock;
inline double seconds_since(seconds_clock::time_point start) {
  return std::chrono::duration<double>(seconds_clock::now() - start).count();
}

// The vmapped estimate over device keys: the first call, then the best of 3 (each waits for
// the device).
template <class Single>
int run_on_device(const Single& monte_carlo_pi_single, const nax::Array<std::uint64_t, batch>& keys,
                  nax::index_t n_samples) {
#if defined(__CUDACC__)
  if (!nax::cuda::has_device()) {
    std::cout << "--cuda: no CUDA device found; nothing run on a GPU (without --cuda the example runs on the host)\n";
    return 0;
  }
  auto device_keys = nax::cuda::to_device(keys);
  auto pi_estimation_vmap = nax::vmap<batch>(monte_carlo_pi_single);
  auto start = seconds_clock::now();
  nax::cuda::Array<double, batch> estimates = pi_estimation_vmap(device_keys);
  nax::cuda::synchronize();
  const double first = seconds_since(start);
  double best = first;
  for (int repeat = 0; repeat < 3; ++repeat) {
    start = seconds_clock::now();
    estimates = pi_estimation_vmap(device_keys);
    nax::cuda::synchronize();
    best = std::min(best, seconds_since(start));
  }
  const double samples = static_cast<double>(keys.size()) * static_cast<double>(n_samples);
  std::cout << "Monte Carlo pi on the GPU: " << keys.size() << " keys x " << n_samples << " samples\n"
            << "vmap over keys: " << best * 1e3 << " ms (first call " << first * 1e3 << " ms), "
            << samples / best / 1e6 << " million samples/s\n"
            << std::setprecision(8) << "pi ~ " << nax::mean(estimates).item() << " (vmap, GPU)\n";
  return 0;
#else
  (void)monte_carlo_pi_single, (void)keys, (void)n_samples;
  std::cerr << "--cuda: this build has no CUDA backend; run monte_carlo_pi_cuda (built when nvcc is found)\n";
  return 2;
#endif
}

int main(int argc, char** argv) {
  namespace random = nax::random;
  constexpr nax::index_t n_batches = 1000, n_samples = 10000;

  // One estimate from one key: a Key, or a key expression (inside vmap: the key array with
  // its batch axis hidden; everything below then runs once per key, fused).
  auto monte_carlo_pi_single = [](const auto& key) {
    auto [key_x, key_y] = random::split(key);
    auto x = random::uniform<sample>(key_x, {n_samples});
    auto y = random::uniform<sample>(key_y, {n_samples});
    // square(x), not x * x: an expression used twice is computed twice (here: generated twice).
    return 4.0f * nax::mean(nax::square(x) + nax::square(y) <= 1.0f);
  };

  // key = random.PRNGKey(1768780800062); keys = random.split(key, n_batches). key() takes the
  // 64-bit seed as JAX does with jax_enable_x64 (JAX's default 32-bit mode keeps its low word
  // only: that is random::key_x32).
  nax::Array<std::uint64_t, batch> keys = random::split<batch>(random::key(1768780800062), n_batches);
  if (argc > 1 && std::strcmp(argv[1], "--cuda") == 0) return run_on_device(monte_carlo_pi_single, keys, n_samples);


  // 1. An explicit loop over the keys: 1000 small passes of 10^4 samples each.
  auto start = seconds_clock::now();
  double loop_sum = 0;
  for (nax::index_t i = 0; i < n_batches; ++i)
    loop_sum += monte_carlo_pi_single(random::wrap_key_data(keys(i))).item();
  const double loop_time = seconds_since(start);

  // 2. vmap over the keys: one fused pass over all 10^7 samples (first call, then the best of 3).
  auto pi_estimation_vmap = nax::vmap<batch>(monte_carlo_pi_single);
  start = seconds_clock::now();
  nax::Array<double, batch> estimates = pi_estimation_vmap(keys);
  const double vmap_time_first = seconds_since(start);
  double vmap_time = vmap_time_first;
  for (int repeat = 0; repeat < 3; ++repeat) {
    start = seconds_clock::now();
    estimates = pi_estimation_vmap(keys);
    vmap_time = std::min(vmap_time, seconds_since(start));
  }

  std::cout << "Monte Carlo pi: " << n_batches << " keys x " << n_samples << " samples\n"
            << "loop over keys: " << loop_time * 1e3 << " ms\n"
            << "vmap over keys: " << vmap_time * 1e3 << " ms (first call " << vmap_time_first * 1e3 << " ms), "
            << n_batches * n_samples / vmap_time / 1e6 << " million samples/s\n"
            << "speedup (loop / vmap): " << loop_time / vmap_time << "x\n"
            << std::setprecision(8) << "pi ~ " << nax::mean(estimates).item() << " (vmap), "
            << loop_sum / n_batches << " (loop)\n";
}
