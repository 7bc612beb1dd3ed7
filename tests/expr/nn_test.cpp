// expr/nn.hpp and the variance reductions against loops written here: softmax, log_softmax,
// standardize, layer_norm, rms_norm, var and std over one axis and over two, on random extents (0 and 1 included)
// and both axis orders, float and double; large logits (no overflow); the errors.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
using nax::index_t;

template <class T>
double tol() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-12;
}

// The row of x(r, :) as doubles.
template <class A>
std::vector<double> row(const A& x, index_t r) {
  std::vector<double> out;
  for (index_t c = 0; c < x.template extent<j>(); ++c) out.push_back(double(x(r, c)));
  return out;
}
double max_of(const std::vector<double>& v) {
  double m = -std::numeric_limits<double>::infinity();
  for (double e : v) m = std::max(m, e);
  return m;
}
double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e;
  return s / double(v.size());
}

template <class T>
void check_over_j(std::uint64_t seed, double spread) {
  nax_test::random_source rng(seed);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t n = rng.extent(5), m = trial == 0 ? 1 : rng.nonzero_extent(6);  // softmax needs a non-empty axis
    CAPTURE(n);
    CAPTURE(m);
    auto x = nax_test::random_array<T, i, j>(rng, {n, m}, T(-spread), T(spread));
    // Results into (j, i) arrays: the destination's order differs from x's.
    nax::Array<T, j, i> s = nax::softmax<j>(x), ls = nax::log_softmax<j>(x), st = nax::standardize<j>(x, 1e-3);
    nax::Array<T, i> v0 = nax::var<j>(x), v1 = nax::var<j>(x, 1), sd = nax::std<j>(x);
    for (index_t r = 0; r < n; ++r) {
      auto xs = row(x, r);
      const double mx = max_of(xs);
      double total = 0;
      for (double e : xs) total += std::exp(e - mx);
      const double mu = mean_of(xs);
      double sq = 0, mean_sq = 0;
      for (double e : xs) sq += (e - mu) * (e - mu), mean_sq += e * e;
      mean_sq /= double(m);
      const double fast_var = mean_sq - mu * mu;  // jax.nn.standardize's variance
      for (index_t c = 0; c < m; ++c) {
        CHECK(double(s(c, r)) == doctest::Approx(std::exp(xs[c] - mx) / total).epsilon(tol<T>()));
        CHECK(double(ls(c, r)) == doctest::Approx((xs[c] - mx) - std::log(total)).epsilon(tol<T>()).scale(1));
        CHECK(double(st(c, r)) ==
              doctest::Approx((xs[c] - mu) / std::sqrt(fast_var + 1e-3)).epsilon(tol<T>() * 10).scale(1));
      }
      CHECK(double(v0(r)) == doctest::Approx(sq / double(m)).epsilon(tol<T>()).scale(1));
      CHECK(double(sd(r)) == doctest::Approx(std::sqrt(sq / double(m))).epsilon(tol<T>()).scale(1));
      if (m > 1) CHECK(double(v1(r)) == doctest::Approx(sq / double(m - 1)).epsilon(tol<T>()).scale(1));
      else CHECK(std::isnan(double(v1(r))));  // 0 / 0, as jnp.var(ddof=1) of one element
    }
  }
}
}  // namespace

TEST_CASE("softmax, log_softmax, standardize, var and std over one axis match loops") {
  check_over_j<double>(1, 4.0);
  check_over_j<float>(2, 4.0);
}

TEST_CASE("large logits: softmax and log_softmax never overflow (x - max first)") {
  check_over_j<float>(3, 1000.0);  // exp(1000) is inf in float and double
  nax::Array<float, i, j> x({1, 2});
  x(0, 0) = 10.0f, x(0, 1) = 0.0f;
  nax::Array<float, i, j> ls = nax::log_softmax<j>(x);
  // log(1 / (1 + e^-10)) = -4.54e-5, accurate in float (x - logsumexp would cancel to ~1e-6).
  CHECK(double(ls(0, 0)) == doctest::Approx(-std::log1p(std::exp(-10.0))).epsilon(1e-5));
}

TEST_CASE("softmax and var over two axes, and over all axes by default for var") {
  nax_test::random_source rng(4);
  for (int trial = 0; trial < 5; ++trial) {
    const index_t n = rng.nonzero_extent(4), m = rng.nonzero_extent(4);
    auto x = nax_test::random_array<double, i, j>(rng, {n, m});
    const double s = nax::sum(nax::softmax<i, j>(x)).item();
    CHECK(s == doctest::Approx(1.0).epsilon(1e-12));
    std::vector<double> all(x.data(), x.data() + x.size());
    const double mu = mean_of(all);
    double sq = 0;
    for (double e : all) sq += (e - mu) * (e - mu);
    CHECK(nax::var(x).item() == doctest::Approx(sq / double(all.size())).epsilon(1e-12));
    CHECK(nax::var<i, j>(x, 1).item() == doctest::Approx(n * m > 1 ? sq / double(all.size() - 1) : 0.0).epsilon(1e-12));
    nax::Array<double, j, i> s2 = nax::softmax<j, i>(x);  // the axes in either order
    nax::Array<double, i, j> s1 = nax::softmax<i, j>(x);
    for (index_t r = 0; r < n; ++r)
      for (index_t c = 0; c < m; ++c) CHECK(s2(c, r) == doctest::Approx(s1(r, c)).epsilon(1e-14));
  }
}

TEST_CASE("softmax of a row with +inf is NaN, as jax.nn.softmax; -inf entries get 0") {
  nax::Array<double, i, j> x({2, 3});
  const double inf = std::numeric_limits<double>::infinity();
  x(0, 0) = 1, x(0, 1) = -inf, x(0, 2) = 2;
  x(1, 0) = 1, x(1, 1) = inf, x(1, 2) = 2;
  nax::Array<double, i, j> s = nax::softmax<j>(x);
  CHECK(s(0, 1) == 0.0);
  CHECK(s(0, 0) + s(0, 2) == doctest::Approx(1.0));
  CHECK(std::isnan(s(1, 1)));
}

TEST_CASE("softmax over an empty axis raises shape_error naming the axis; other empty axes are fine") {
  nax::Array<double, i, j> x({3, 0});
  CHECK_THROWS_WITH_AS(nax::softmax<j>(x), doctest::Contains("softmax over axis 'j' of extent 0"), nax::shape_error);
  CHECK_THROWS_WITH_AS(nax::log_softmax<j>(x), doctest::Contains("log_softmax over axis 'j'"), nax::shape_error);
  nax::Array<double, i, j> y({0, 4});
  nax::Array<double, i, j> s = nax::softmax<j>(y);
  CHECK(s.size() == 0);
  CHECK(std::isnan(nax::var(nax::Array<double, i>({0})).item()));  // 0 / 0, as jnp.var of nothing
}

TEST_CASE("leaky_relu, elu and the cross-entropies match loops") {
  nax_test::random_source rng(5);
  for (int trial = 0; trial < 4; ++trial) {
    const index_t n = rng.extent(4), m = rng.nonzero_extent(5);
    auto x = nax_test::random_array<double, i, j>(rng, {n, m});
    auto p = nax_test::random_array<double, j, i>(rng, {m, n}, 0.0, 1.0);
    nax::Array<double, i, j> lr = nax::leaky_relu(x, 0.2), el = nax::elu(x, 1.5);
    nax::Array<double, j, i> bce = nax::sigmoid_binary_cross_entropy(x, p);
    nax::Array<double, i> ce = nax::softmax_cross_entropy<j>(x, p);
    for (index_t r = 0; r < n; ++r) {
      auto xs = row(x, r);
      const double mx = max_of(xs);
      double total = 0;
      for (double e : xs) total += std::exp(e - mx);
      double want_ce = 0;
      for (index_t c = 0; c < m; ++c) {
        const double v = xs[c], q = p(c, r);
        CHECK(lr(r, c) == doctest::Approx(v >= 0 ? v : 0.2 * v));
        CHECK(el(r, c) == doctest::Approx(v > 0 ? v : 1.5 * std::expm1(v)));
        const double sig = 1 / (1 + std::exp(-v));
        CHECK(bce(c, r) == doctest::Approx(-q * std::log(sig) - (1 - q) * std::log(1 - sig)).epsilon(1e-12));
        want_ce -= q * ((v - mx) - std::log(total));
      }
      CHECK(ce(r) == doctest::Approx(want_ce).epsilon(1e-12));
    }
  }
}

TEST_CASE("layer_norm and rms_norm (flax's formulas) against loops, scale and bias by name") {
  nax_test::random_source rng(3140);
  for (int trial = 0; trial < 10; ++trial) {
    const index_t n = rng.extent(4), m = rng.nonzero_extent(7);
    auto x = nax_test::random_array<double, i, j>(rng, {n, m}, -3.0, 3.0);
    if (trial == 0 && n > 0)
      for (index_t c = 0; c < m; ++c) x(0, c) = 1.25;  // a constant row: variance 0 (or a rounding below it)
    auto scale = nax_test::random_array<double, j>(rng, {m}, 0.5, 1.5);
    auto bias = nax_test::random_array<double, j>(rng, {m}, -1.0, 1.0);
    nax::Array<double, j, i> ln = nax::layer_norm<j>(x, scale, bias);
    nax::Array<double, i, j> rms = nax::rms_norm<j>(x, scale, 1e-3);
    nax_test::check_all(ln, [&](const nax_test::index_map& at) {
      const auto r = row(x, at.at("i"));
      const double mu = mean_of(r);
      double sq = 0;
      for (double e : r) sq += e * e;
      const double var = std::max(0.0, sq / double(m) - mu * mu);
      const index_t c = at.at("j");
      return (x(at.at("i"), c) - mu) / std::sqrt(var + 1e-6) * scale(c) + bias(c);
    }, 1e-9, 1e-9);
    nax_test::check_all(rms, [&](const nax_test::index_map& at) {
      const auto r = row(x, at.at("i"));
      double sq = 0;
      for (double e : r) sq += e * e;
      const index_t c = at.at("j");
      return x(at.at("i"), c) / std::sqrt(sq / double(m) + 1e-3) * scale(c);
    }, 1e-12, 1e-12);
  }
}
