// Shared helpers of the CUDA tests: the skip check (prints "CUDA tests skipped: no device"
// once, and a doctest message in every skipped case), random host arrays with random
// extents (size 0 and 1 included), and comparison of a device result with the host's.
#pragma once
#include <nax/cuda.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>

namespace nax_cuda_test {

inline bool no_device() {
  if (nax::cuda::has_device()) return false;
  static bool printed = [] {
    std::puts("CUDA tests skipped: no device");
    return true;
  }();
  (void)printed;
  MESSAGE("CUDA tests skipped: no device");
  return true;
}

inline std::mt19937& rng() {
  static std::mt19937 g(20261130);
  return g;
}

// Extents drawn from a list that includes the edge cases 0 and 1.
inline nax::index_t random_extent() {
  static constexpr nax::index_t choices[] = {0, 1, 1, 2, 3, 5, 8, 17, 33, 64, 129};
  std::uniform_int_distribution<int> pick(0, static_cast<int>(std::size(choices)) - 1);
  return choices[pick(rng())];
}

template <class T, class... As>
nax::Array<T, As...> random_array(const std::array<nax::index_t, sizeof...(As)>& extents) {
  nax::Array<T, As...> a(extents);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(T(-2), T(2));
    for (auto& v : a) v = d(rng());
  } else if constexpr (std::is_same_v<T, bool>) {
    std::bernoulli_distribution d(0.5);
    for (auto& v : a) v = d(rng());
  } else {
    std::uniform_int_distribution<int> d(-9, 9);
    for (auto& v : a) v = static_cast<T>(d(rng()));
  }
  return a;
}

// Every element equal (integers, bool) or close (floating: relative tolerance tol).
template <class T, class... As>
void check_same(const nax::Array<T, As...>& device_result, const nax::Array<T, As...>& host_result, double tol = 1e-5) {
  REQUIRE(device_result.extents() == host_result.extents());
  const T* d = device_result.data();
  const T* h = host_result.data();
  nax::index_t bad = 0;
  for (nax::index_t n = 0; n < host_result.size(); ++n) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      const double a = static_cast<double>(d[n]), b = static_cast<double>(h[n]);
      ok = (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) <= tol * (1.0 + std::abs(b));
    } else {
      ok = d[n] == h[n];
    }
    if (!ok && bad++ < 5)
      FAIL_CHECK("element " << n << ": device " << +d[n] << ", host " << +h[n]);
  }
  CHECK(bad == 0);
}

}  // namespace nax_cuda_test
