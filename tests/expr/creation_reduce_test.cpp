// expr/creation.hpp and expr/reduce_compositions.hpp against loops written here: linspace
// (jnp's formula, endpoint or not, integer types, 0 and 1 values), eye, tri, tril and triu
// (every diagonal offset, empty and size-1 axes, both axis orders, the masks' gradients),
// full_like/zeros_like/ones_like, any, all, count_nonzero (NaN and empty axes), nansum,
// nanmean and the norms, with their gradients where they have one.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(r);
NAX_AXIS(c);
NAX_AXIS(b);
using nax::index_t;
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

// jnp.linspace's value i, in C, as jax/_src/numpy/array_creation.py computes it.
template <class C>
C linspace_value(double start, double stop, index_t num, bool endpoint, index_t i) {
  const index_t steps = endpoint ? num - 1 : num;
  if (endpoint && num > 1 && i == num - 1) return C(stop);
  if (steps <= 0) return C(start);
  const C t = C(i) / C(steps);
  return C(start) * (C(1) - t) + C(stop) * t;
}
}  // namespace

TEST_CASE("linspace: jnp's values, with and without the endpoint, floating and integer types") {
  nax_test::random_source rng(2201);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t num = rng.extent(9);
    const double start = rng.value(-5.0, 5.0), stop = rng.value(-5.0, 5.0);
    const bool endpoint = rng.chance(0.5);
    INFO("num " << num << " from " << start << " to " << stop << " endpoint " << endpoint);
    nax::Array<float, r> f = nax::linspace<r>(start, stop, num, endpoint);
    nax_test::check_all(f, [&](const nax_test::index_map& at) {
      return linspace_value<float>(start, stop, num, endpoint, at.at("r"));
    }, 0.0, 0.0);
    nax::Array<double, r> d = nax::linspace<r, double>(start, stop, num, endpoint);
    nax_test::check_all(d, [&](const nax_test::index_map& at) {
      return linspace_value<double>(start, stop, num, endpoint, at.at("r"));
    }, 0.0, 0.0);
    nax::Array<int, r> i = nax::linspace<r, int>(start * 10, stop * 10, num, endpoint);
    nax_test::check_all(i, [&](const nax_test::index_map& at) {
      return int(std::floor(linspace_value<double>(start * 10, stop * 10, num, endpoint, at.at("r"))));
    });
  }
  nax::Array<int, r> q = nax::linspace<r, int>(0, 10, 4);  // jnp.linspace(0, 10, 4, dtype=int32)
  CHECK(std::vector<int>(q.begin(), q.end()) == std::vector<int>{0, 3, 6, 10});
  CHECK_THROWS_AS(nax::linspace<r>(0, 1, -1), nax::shape_error);
}

TEST_CASE("eye, tri, tril and triu against loops: every diagonal offset, empty axes, both orders") {
  nax_test::random_source rng(2202);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t n = rng.extent(5), m = rng.extent(5), k = rng.integer(-6, 6);
    INFO("rows " << n << " columns " << m << " offset " << k);
    nax::Array<float, r, c> e = nax::eye<r, c>(n, m, k);
    nax_test::check_all(e, [&](const nax_test::index_map& at) { return at.at("c") - at.at("r") == k ? 1.f : 0.f; });
    nax::Array<double, c, r> t = nax::tri<r, c, double>(n, m, k);
    nax_test::check_all(t, [&](const nax_test::index_map& at) { return at.at("c") <= at.at("r") + k ? 1.0 : 0.0; });
    auto x = nax_test::random_array<double, c, r>(rng, {m, n});
    nax::Array<double, r, c> lower = nax::tril<r, c>(x, k);
    nax_test::check_all(lower, [&](const nax_test::index_map& at) {
      return at.at("c") <= at.at("r") + k ? nax_test::at(x, at) : 0.0;
    });
    nax::Array<double, c, r> upper = nax::triu<r, c>(x * 2.0, k);
    nax_test::check_all(upper, [&](const nax_test::index_map& at) {
      return at.at("c") >= at.at("r") + k ? 2.0 * nax_test::at(x, at) : 0.0;
    });
    // the gradient of a mask is the mask
    auto g = nax::grad([&](const auto& z) { return nax::sum(nax::square(nax::tril<r, c>(z, k))); })(x);
    nax_test::check_all(g, [&](const nax_test::index_map& at) {
      return at.at("c") <= at.at("r") + k ? 2.0 * nax_test::at(x, at) : 0.0;
    });
  }
  nax::Array<float, r, c> square = nax::eye<r, c>(3);
  CHECK(square(1, 1) == 1.f);
  CHECK(square(1, 2) == 0.f);
}

TEST_CASE("full_like, zeros_like and ones_like: the operand's axes, extents and type, inside vmap too") {
  nax_test::random_source rng(2203);
  const index_t n = rng.extent(4), m = rng.extent(4);
  auto x = nax_test::random_array<double, r, c>(rng, {n, m});
  nax::Array<double, r, c> f = nax::full_like(x, 2.5);
  nax_test::check_all(f, [](const nax_test::index_map&) { return 2.5; });
  nax::Array<int, c, r> z = nax::zeros_like(nax::cast<int>(x));
  nax_test::check_all(z, [](const nax_test::index_map&) { return 0; });
  nax::Array<double, r, c> o = nax::ones_like(x) + x;  // fused
  nax_test::check_all(o, [&](const nax_test::index_map& at) { return 1.0 + nax_test::at(x, at); });
  // inside vmap the result has the member's axes only; the output broadcasts it as vmap does
  nax::Array<double, b, c> v = nax::vmap<b>([](const auto& row) { return nax::full_like(row, 3.0); })(
      nax_test::random_array<double, b, c>(rng, {2, m}));
  nax_test::check_all(v, [](const nax_test::index_map&) { return 3.0; });
}

TEST_CASE("any, all and count_nonzero: NaN counts as non-zero, empty axes give the identities") {
  nax_test::random_source rng(2204);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t n = rng.extent(5), m = rng.extent(4);
    INFO("extents r=" << n << " c=" << m);
    nax::Array<double, r, c> x({n, m});
    for (auto& e : x) e = rng.chance(0.1) ? not_a_number : (rng.chance(0.5) ? 0.0 : rng.value(-1.0, 1.0));
    auto column = [&](const nax_test::index_map& at, auto f) {
      for (index_t i = 0; i < n; ++i) f(x(i, at.at("c")));
    };
    nax::Array<bool, c> a = nax::any<r>(x);
    nax_test::check_all(a, [&](const nax_test::index_map& at) {
      bool any = false;
      column(at, [&](double e) { any = any || e != 0.0; });
      return any;
    });
    nax::Array<bool, c> l = nax::all<r>(x);
    nax_test::check_all(l, [&](const nax_test::index_map& at) {
      bool all = true;
      column(at, [&](double e) { all = all && e != 0.0; });
      return all;
    });
    nax::Array<std::int64_t, c> k = nax::count_nonzero<r>(x);
    nax_test::check_all(k, [&](const nax_test::index_map& at) {
      std::int64_t count = 0;
      column(at, [&](double e) { count += e != 0.0; });
      return count;
    });
    nax::Array<bool> whole = nax::any(nax::cast<bool>(x));  // no axis named: every axis
    bool expected = false;
    for (double e : x) expected = expected || e != 0.0;
    CHECK(whole() == expected);
    nax::Array<std::int64_t> total = nax::count_nonzero(nax::cast<int>(nax::where(nax::isnan(x), 1.0, x * 2.0)));
    std::int64_t expected_total = 0;
    for (double e : x) expected_total += std::isnan(e) || int(e * 2.0) != 0;
    CHECK(total() == expected_total);
  }
}

TEST_CASE("nansum, nanmean and the norms against loops, with their gradients") {
  nax_test::random_source rng(2205);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t n = rng.extent(5), m = rng.extent(4);
    INFO("extents r=" << n << " c=" << m);
    nax::Array<double, c, r> x({m, n});
    for (auto& e : x) e = rng.chance(0.2) ? not_a_number : rng.value(-2.0, 2.0);
    auto over_rows = [&](const nax_test::index_map& at, auto f) {
      for (index_t i = 0; i < n; ++i) f(x(at.at("c"), i));
    };
    nax::Array<double, c> s = nax::nansum<r>(x);
    nax_test::check_all(s, [&](const nax_test::index_map& at) {
      double t = 0;
      over_rows(at, [&](double e) { t += std::isnan(e) ? 0.0 : e; });
      return t;
    });
    nax::Array<double, c> mean = nax::nanmean<r>(x);
    nax_test::check_all(mean, [&](const nax_test::index_map& at) {
      double t = 0, count = 0;
      over_rows(at, [&](double e) { t += std::isnan(e) ? 0.0 : e, count += !std::isnan(e); });
      return t / count;  // 0 / 0: NaN where every element is NaN, as jnp.nanmean
    });
    auto g = nax::grad([](const auto& z) { return nax::sum(nax::nanmean<r>(z)); })(x);
    nax_test::check_all(g, [&](const nax_test::index_map& at) {
      double count = 0;
      over_rows(at, [&](double e) { count += !std::isnan(e); });
      return std::isnan(nax_test::at(x, at)) ? 0.0 : 1.0 / count;
    });
    // norms of the NaN-free values
    nax::Array<double, c, r> y = nax::where(nax::isnan(x), 0.5, x);
    nax::Array<double, c> two = nax::norm<r>(y);
    nax::Array<double, c> one = nax::norm<r>(y, nax::ord::one);
    nax_test::check_all(two, [&](const nax_test::index_map& at) {
      double t = 0;
      for (index_t i = 0; i < n; ++i) t += y(at.at("c"), i) * y(at.at("c"), i);
      return std::sqrt(t);
    });
    nax_test::check_all(one, [&](const nax_test::index_map& at) {
      double t = 0;
      for (index_t i = 0; i < n; ++i) t += std::fabs(y(at.at("c"), i));
      return t;
    });
    nax::Array<double> frobenius = nax::norm<r, c>(y);
    double t = 0;
    for (double e : y) t += e * e;
    CHECK(frobenius() == doctest::Approx(std::sqrt(t)).epsilon(1e-14));
    auto g2 = nax::grad([](const auto& z) { return nax::sum(nax::norm<r>(z)); })(y);
    nax_test::check_all(g2, [&](const nax_test::index_map& at) { return nax_test::at(y, at) / two(at.at("c")); });
    if (n > 0) {
      nax::Array<double, c> inf = nax::norm<r>(y, nax::ord::inf);
      nax_test::check_all(inf, [&](const nax_test::index_map& at) {
        double best = 0;
        for (index_t i = 0; i < n; ++i) best = std::max(best, std::fabs(y(at.at("c"), i)));
        return best;
      });
    }
  }
  // JAX's values at the corners: the 2-norm's gradient at 0 is NaN; max-norm ties share it
  nax::Array<double, r> zero({3});
  auto g0 = nax::grad([](const auto& z) { return nax::norm(z); })(zero);
  CHECK(std::isnan(g0(0)));
  nax::Array<double, r> tie({3});
  tie(0) = 1, tie(1) = -3, tie(2) = 3;
  auto gi = nax::grad([](const auto& z) { return nax::norm<r>(z, nax::ord::inf); })(tie);
  CHECK(gi(0) == 0.0);
  CHECK(gi(1) == -0.5);
  CHECK(gi(2) == 0.5);
  nax::Array<double, r> none({0});
  CHECK(nax_test::check_shape_error([&] { auto e = nax::norm<r>(none, nax::ord::inf); }, {"max over axis 'r' of extent 0"}));
}
