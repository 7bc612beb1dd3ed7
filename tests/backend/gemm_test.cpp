// The built-in host GEMM (nax::detail::host::gemm_builtin, and gemm without NAX_USE_CBLAS)
// against a naive triple loop: sizes around tile and block edges, strided, transposed,
// reversed and broadcast operands, alpha and beta, every arithmetic type.
#include "gemm_reference.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace host = nax::detail::host;
using nax::index_t;

namespace {
// The GEMM under test: the built-in kernel whatever NAX_USE_CBLAS says.
const auto builtin = [](auto&&... args) { host::gemm_builtin(args...); };
}  // namespace

TEST_CASE("gemm multiplies a row-major 2x3 by a 3x2 matrix") {
  const float a[] = {1, 2, 3,  //
                     4, 5, 6};
  const float b[] = {7, 8,  //
                     9, 10,  //
                     11, 12};
  float c[] = {1, 1,  //
               1, 1};
  // C = 1 * A B + 2 * C; element (m, k) of A is a[m * 3 + k].
  host::gemm<float>(1, 2, 2, 3, 1.0f, {a, 0, 3, 1}, {b, 0, 2, 1}, 2.0f, {c, 0, 2, 1});
  CHECK(c[0] == 60);
  CHECK(c[1] == 66);
  CHECK(c[2] == 141);
  CHECK(c[3] == 156);
  // A^T B^T without copies: a transposed operand is the same data with swapped strides.
  float d[4];
  host::gemm<float>(1, 2, 2, 3, 1.0f, {b, 0, 1, 2}, {a, 0, 1, 3}, 0.0f, {d, 0, 2, 1});
  CHECK(d[0] == 1 * 7 + 2 * 9 + 3 * 11);
  CHECK(d[1] == 4 * 7 + 5 * 9 + 6 * 11);
}

TEST_CASE_TEMPLATE("gemm_builtin matches the triple loop for all small sizes", T, float, double, long double,
                   std::int32_t, std::int64_t, std::uint32_t, std::int16_t, std::uint8_t) {
  gemm_reference::check_small_sizes<T>(builtin);
}

TEST_CASE_TEMPLATE("gemm_builtin matches the triple loop for random strided layouts", T, float, double,
                   std::int32_t, std::int64_t, std::uint32_t) {
  gemm_reference::check_random_layouts<T>(builtin, 11, 300);
}

TEST_CASE_TEMPLATE("gemm_builtin is right across cache blocks and thread splits", T, float, double, std::int32_t) {
  gemm_reference::check_block_edges<T>(builtin);
}

TEST_CASE_TEMPLATE("gemm_builtin's thin products (a dimension of at most 8) match the triple loop", T, float, double) {
  gemm_reference::check_thin<T>(builtin);
}

TEST_CASE_TEMPLATE("gemm_builtin with K == 0 or alpha == 0 scales C by beta", T, float, double, std::int64_t) {
  gemm_reference::check_degenerate<T>(builtin);
}

TEST_CASE("gemm_builtin with beta == 0 ignores NaN in C and reuses its buffers across calls") {
  // Same shapes twice, then a larger one: the per-thread packing buffers are reused and grown.
  std::mt19937 rng(5);
  for (index_t n : {40, 40, 300})
    gemm_reference::check_product<float>(builtin, gemm_reference::problem{1, n, n, n}, 1.0f, 0.0f, rng);
}

// Subnormals (backend/host/subnormals.hpp): flushed in products as XLA flushes them on the CPU
// (jax.jit(lambda a: a @ a) of 1e-20 gives 0 where numpy gives 6.4e-39), unless the build
// defines NAX_KEEP_SUBNORMALS; the caller's floating-point flags are the same afterwards.
TEST_CASE_TEMPLATE("gemm_builtin flushes subnormal operands and results to zero on x86, and restores the flags", T,
                   float, double) {
  const T tiny = std::numeric_limits<T>::denorm_min() * T(1000);  // a subnormal operand
  const T small = std::sqrt(std::numeric_limits<T>::min()) / T(4);  // small * small is subnormal
  for (index_t n : {4, 64, 130}) {  // a thin product on the calling thread, then the packed kernel on 2 threads
    CAPTURE(n);
    std::vector<T> a(static_cast<std::size_t>(n * n), tiny), ones(a.size(), T(1)), c(a.size(), T(7));
    host::gemm_builtin<T>(1, n, n, n, T(1), {a.data(), 0, n, 1}, {ones.data(), 0, n, 1}, T(0), {c.data(), 0, n, 1});
    const T subnormal_sum = static_cast<T>(n) * tiny;  // the IEEE result, itself subnormal here
    std::fill(a.begin(), a.end(), small);
    std::vector<T> d(a.size(), T(7));
    host::gemm_builtin<T>(1, n, n, n, T(1), {a.data(), 0, n, 1}, {a.data(), 0, n, 1}, T(0), {d.data(), 0, n, 1});
    if (NAX_FLUSHES_SUBNORMALS) {
      CHECK(std::count(c.begin(), c.end(), T(0)) == n * n);
      CHECK(std::count(d.begin(), d.end(), T(0)) == n * n);
    } else {
      CHECK(std::count(c.begin(), c.end(), subnormal_sum) == n * n);
      CHECK(std::count_if(d.begin(), d.end(), [](T x) { return x > T(0); }) == n * n);
    }
  }
  // Arithmetic after the call keeps IEEE's gradual underflow again.
  volatile T x = tiny;
  CHECK(x * T(1.5) > T(0));
}
