// The elementwise gradient checks shared by the unary_* and binary_* tests: grad against
// central finite differences on random extents (a size-1 axis in one trial), and for binary
// operations with one operand broadcast by name, in both operand orders.
#pragma once
#include "finite_difference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
using nax::index_t;

template <class Op>
void check_unary(const char* name, Op op, double lo, double hi, std::uint64_t seed) {
  nax_test::random_source rng(seed);
  for (int trial = 0; trial < 3; ++trial) {
    index_t n = 1 + index_t(rng.template value<int>(0, 5)), m = trial == 0 ? 1 : 1 + index_t(rng.template value<int>(0, 4));
    auto x = nax_test::random_array<double, i, j>(rng, {n, m}, lo, hi);
    auto w = nax_test::random_array<double, j, i>(rng, {m, n});
    auto f = [&](const auto& a) { return nax::sum(op(a) * w); };
    auto g = nax::grad(f)(x);
    static_assert(std::is_same_v<decltype(g), nax::Array<double, i, j>>);
    double err = nax_ad_test::fd_error([&] { return nax::sum(op(x) * w).item(); }, x, g);
    INFO(name << " extents " << n << "x" << m);
    CHECK(err < 1e-6);
  }
}

template <class Op>
void check_binary(const char* name, Op op, double lo, double hi, std::uint64_t seed) {
  nax_test::random_source rng(seed);
  for (int trial = 0; trial < 3; ++trial) {
    index_t n = 1 + index_t(rng.template value<int>(0, 4)), m = trial == 1 ? 1 : 1 + index_t(rng.template value<int>(0, 4));
    auto x = nax_test::random_array<double, i, j>(rng, {n, m}, lo, hi);
    auto y = nax_test::random_array<double, j>(rng, {m}, lo, hi);  // broadcast over i by name
    auto w = nax_test::random_array<double, i, j>(rng, {n, m});
    auto f = [&](const auto& a, const auto& b) { return nax::sum(op(a, b) * w); };
    auto [gx, gy] = nax::grad<0, 1>(f)(x, y);
    static_assert(std::is_same_v<decltype(gy), nax::Array<double, j>>);
    INFO(name << " extents " << n << "x" << m);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(op(x, y) * w).item(); }, x, gx) < 1e-6);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(op(x, y) * w).item(); }, y, gy) < 1e-6);
    // The other operand order: the broadcast operand first.
    auto [hy, hx] = nax::grad<0, 1>([&](const auto& b, const auto& a) { return nax::sum(op(b, a) * w); })(y, x);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(op(y, x) * w).item(); }, x, hx) < 1e-6);
    CHECK(nax_ad_test::fd_error([&] { return nax::sum(op(y, x) * w).item(); }, y, hy) < 1e-6);
  }
}
}  // namespace
