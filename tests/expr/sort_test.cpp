// expr/sort.hpp and expr/quantile.hpp against loops written here (std::stable_sort with JAX's
// total order: NaNs last and all equal, -0.0 equal to 0.0): sort and argsort along each axis,
// both directions, on random extents (0 and 1 included) with ties, NaNs and signed zeros;
// integer and bool operands; long lines (the radix sort) and strided ones; top_k; searchsorted
// with a shared axis, both sides; quantile (every method, several q at once) and median; the
// gradients of sort, top_k and quantile, and sort per member in vmap; the errors.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(p);
NAX_AXIS(q);
NAX_AXIS(s);
NAX_AXIS(k);
using nax::index_t;
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

// JAX's total order: a before b.
template <class T>
bool less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// IEEE 754's totalOrder (lax.top_k's): -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN.
template <class T>
bool total_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    auto rank = [](T v) { return std::isnan(v) ? (std::signbit(v) ? 0 : 2) : 1; };
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (std::isnan(a)) return false;
    if (a == b) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

// The values of x's line through `at` along axis, and the stable argsort of that line.
template <class V>
std::vector<typename V::value_type> line_of(const V& x, const std::string& axis, nax_test::index_map at) {
  std::vector<typename V::value_type> line;
  for (index_t i = 0; i < nax_test::sizes_of(x).at(axis); ++i) {
    at[axis] = i;
    line.push_back(nax_test::at(x, at));
  }
  return line;
}
template <class T>
std::vector<index_t> stable_order(const std::vector<T>& line, bool descending, bool total = false) {
  std::vector<index_t> order(line.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<index_t>(i);
  auto before = [&](T u, T v) { return total ? total_less(u, v) : less(u, v); };
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) {
    return descending ? before(line[static_cast<std::size_t>(b)], line[static_cast<std::size_t>(a)])
                      : before(line[static_cast<std::size_t>(a)], line[static_cast<std::size_t>(b)]);
  });
  return order;
}

// Equal as JAX's outputs are: the same bits for zeros' signs, NaN for NaN.
template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
  } else {
    return a == b;
  }
}

// sort<A> and argsort<A> of x against the loop, both directions.
template <class A, class V>
void check_sort_along(const V& x) {
  const std::string axis(nax::axis_name<A>());
  using T = typename V::value_type;
  for (bool descending : {false, true}) {
    INFO("along " << axis << ", extents " << nax_test::describe(nax_test::sizes_of(x)) << ", descending " << descending);
    V sorted = nax::sort<A>(x, descending);
    auto positions = nax::Array<index_t, q, s, p>(nax::argsort<A>(x, descending));  // another order
    bool values_ok = true, positions_ok = true;
    nax_test::for_each_index(x, [&](const nax_test::index_map& at) {
      const auto line = line_of(x, axis, at);
      const index_t n = static_cast<index_t>(line.size()), i = at.at(axis);
      const auto ascending = stable_order(line, false);
      // values: the ascending sort, reversed when descending (jnp.sort)
      const index_t from = ascending[static_cast<std::size_t>(descending ? n - 1 - i : i)];
      values_ok = values_ok && same_value<T>(nax_test::at(sorted, at), line[static_cast<std::size_t>(from)]);
      positions_ok = positions_ok && nax_test::at(positions, at) == stable_order(line, descending)[static_cast<std::size_t>(i)];
    });
    CHECK(values_ok);
    CHECK(positions_ok);
  }
}

// Doubles with ties, NaNs, infinities and both zeros.
template <class T, class... As>
nax::Array<T, As...> awkward(nax_test::random_source& rng, const std::array<index_t, sizeof...(As)>& extents) {
  nax::Array<T, As...> x(extents);
  const T specials[] = {T(not_a_number), -T(not_a_number), T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()};
  for (auto& e : x) e = rng.chance(0.25) ? specials[rng.integer(0, 5)] : T(rng.integer(-4, 4)) / T(2);
  return x;
}
}  // namespace

TEST_CASE("sort and argsort along each axis, both directions, with ties, NaNs and signed zeros") {
  nax_test::random_source rng(3101);
  for (int trial = 0; trial < 25; ++trial) {
    auto x = awkward<double, p, q, s>(rng, {rng.extent(4), rng.extent(6), rng.extent(3)});
    check_sort_along<p>(x);
    check_sort_along<q>(x);
    check_sort_along<s>(x);
    auto f = awkward<float, p, q, s>(rng, {rng.extent(3), rng.extent(7), rng.extent(2)});
    check_sort_along<q>(f);
  }
}

TEST_CASE("sort and argsort of integers and bools, and of an expression") {
  nax_test::random_source rng(3102);
  for (int trial = 0; trial < 20; ++trial) {
    const std::array<index_t, 3> e{rng.extent(4), rng.extent(6), rng.extent(3)};
    auto i8 = nax_test::random_array<std::int8_t, p, q, s>(rng, e, std::int8_t(-128), std::int8_t(127));
    check_sort_along<q>(i8);
    auto u8 = nax_test::random_array<std::uint8_t, p, q, s>(rng, e, std::uint8_t(0), std::uint8_t(255));
    check_sort_along<p>(u8);
    auto i64 = nax_test::random_array<std::int64_t, p, q, s>(rng, e, std::int64_t(-3), std::int64_t(3));
    if (i64.size() > 0) i64.data()[0] = std::numeric_limits<std::int64_t>::min();
    check_sort_along<s>(i64);
    auto flags = nax::Array<bool, p, q, s>(i64 > 0);
    check_sort_along<q>(flags);
    // an expression as operand, a consumer fused after
    auto x = nax_test::random_array<double, p, q, s>(rng, e);
    nax::Array<double, p, q, s> y = nax::sort<q>(-x) * 2.0;
    nax::Array<double, p, q, s> neg = -x;
    nax::Array<double, p, q, s> z = nax::sort<q>(neg);
    nax_test::check_all(y, [&](const nax_test::index_map& at) { return 2.0 * nax_test::at(z, at); });
  }
}

TEST_CASE("long lines (the radix sort) and strided lines, in several lines at once") {
  nax_test::random_source rng(3103);
  for (index_t n : {index_t(255), index_t(256), index_t(3000), index_t(70001)}) {
    for (index_t lines : {1, 3}) {
      INFO("n " << n << " lines " << lines);
      nax::Array<float, p, q> x({n, lines});  // the sorted axis p is the outer one: strided lines
      for (auto& e : x) e = rng.chance(0.01) ? float(not_a_number) : float(rng.integer(-1000, 1000)) / 8.f;
      for (bool descending : {false, true}) {
        nax::Array<float, p, q> sorted = nax::sort<p>(x, descending);
        nax::Array<index_t, q, p> order = nax::argsort<p>(x, descending);
        bool ok = true;
        for (index_t l = 0; l < lines; ++l) {
          std::vector<float> line(static_cast<std::size_t>(n));
          for (index_t i = 0; i < n; ++i) line[static_cast<std::size_t>(i)] = x(i, l);
          const auto asc = stable_order(line, false), want = stable_order(line, descending);
          for (index_t i = 0; i < n; ++i) {
            ok = ok && same_value(sorted(i, l), line[static_cast<std::size_t>(asc[static_cast<std::size_t>(descending ? n - 1 - i : i)])]);
            ok = ok && order(l, i) == want[static_cast<std::size_t>(i)];
          }
        }
        CHECK(ok);
      }
    }
  }
}

// Every line of x (p, q) along q sorted and argsorted, both directions, against the loop; each
// line's reference computed once (long lines).
template <class T>
void check_long_lines(const nax::Array<T, p, q>& x) {
  const index_t np = x.template extent<p>(), n = x.template extent<q>();
  for (bool descending : {false, true}) {
    INFO("n " << n << " descending " << descending);
    nax::Array<T, p, q> sorted = nax::sort<q>(x, descending);
    nax::Array<index_t, q, p> order = nax::argsort<q>(x, descending);
    bool ok = true;
    for (index_t l = 0; l < np; ++l) {
      std::vector<T> line(static_cast<std::size_t>(n));
      for (index_t i = 0; i < n; ++i) line[static_cast<std::size_t>(i)] = x(l, i);
      const auto asc = stable_order(line, false), want = stable_order(line, descending);
      for (index_t i = 0; i < n; ++i) {
        ok = ok && same_value(sorted(l, i), line[static_cast<std::size_t>(asc[static_cast<std::size_t>(descending ? n - 1 - i : i)])]);
        ok = ok && order(i, l) == want[static_cast<std::size_t>(i)];
      }
    }
    CHECK(ok);
  }
}

TEST_CASE("long lines of doubles with signed zeros and NaNs of either sign, and of 16- and 64-bit integers") {
  nax_test::random_source rng(3109);
  for (index_t n : {index_t(300), index_t(70001)}) {  // 8-bit and 11-bit digits
    check_long_lines(awkward<double, p, q>(rng, {2, n}));
    check_long_lines(awkward<float, p, q>(rng, {1, n}));
    auto wide = nax_test::random_array<std::int64_t, p, q>(rng, {2, n}, std::int64_t(-1) << 40, std::int64_t(1) << 40);
    wide(0, 0) = std::numeric_limits<std::int64_t>::min();
    wide(1, 1) = std::numeric_limits<std::int64_t>::max();
    check_long_lines(wide);
    check_long_lines(nax_test::random_array<std::int16_t, p, q>(rng, {2, n}, std::int16_t(-32768), std::int16_t(32767)));
  }
}

TEST_CASE("top_k: the k largest along a new axis, largest first, ties in order, in IEEE totalOrder") {
  nax_test::random_source rng(3104);
  for (int trial = 0; trial < 25; ++trial) {
    const index_t np = rng.extent(4), nq = rng.extent(7);
    auto x = awkward<float, p, q>(rng, {np, nq});
    const index_t kk = rng.integer(0, nq);
    INFO("extents p=" << np << " q=" << nq << " k=" << kk);
    auto [values, indices] = nax::top_k<q, k>(x, kk);
    nax::Array<float, p, k> v = values;
    nax::Array<index_t, k, p> i = indices;
    bool ok = true;
    for (index_t a = 0; a < np; ++a) {
      std::vector<float> line(static_cast<std::size_t>(nq));
      for (index_t b = 0; b < nq; ++b) line[static_cast<std::size_t>(b)] = x(a, b);
      const auto order = stable_order(line, true, true);
      for (index_t j = 0; j < kk; ++j) {
        const index_t from = order[static_cast<std::size_t>(j)];
        ok = ok && i(j, a) == from && same_value(v(a, j), line[static_cast<std::size_t>(from)]);
      }
    }
    CHECK(ok);
  }
  // long lines with few k: the host selects (partial_sort) instead of sorting; k = n / 8 is the
  // last that selects, one more sorts
  for (index_t kk : {1, 5, 40, 125, 126, 1000}) {
    INFO("n 1000, k " << kk);
    auto x = awkward<double, p, q>(rng, {3, 1000});
    nax::Array<index_t, p, k> i = nax::top_k<q, k>(x, kk).indices;
    nax::Array<double, k, p> v = nax::top_k<q, k>(x, kk).values;
    bool ok = true;
    for (index_t a = 0; a < 3; ++a) {
      std::vector<double> line(1000);
      for (index_t b = 0; b < 1000; ++b) line[static_cast<std::size_t>(b)] = x(a, b);
      const auto order = stable_order(line, true, true);
      for (index_t j = 0; j < kk; ++j)
        ok = ok && i(a, j) == order[static_cast<std::size_t>(j)] && same_value(v(j, a), line[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])]);
    }
    CHECK(ok);
  }
  nax::Array<float, p, q> x({2, 3});
  CHECK(nax_test::check_shape_error([&] { (void)nax::top_k<q, k>(x, 4); }, {"top_k<q, k>", "4", "[0, 3]", "'q'"}));
  CHECK(nax_test::check_shape_error([&] { (void)nax::top_k<q, k>(x, -1); }, {"-1", "[0, 3]"}));
}

TEST_CASE("searchsorted: left and right, NaNs and signed zeros, a line per position of a shared axis") {
  nax_test::random_source rng(3105);
  for (int trial = 0; trial < 25; ++trial) {
    const index_t np = rng.extent(3), nq = rng.extent(8), ns = rng.extent(4);
    auto raw = awkward<double, p, q>(rng, {np, nq});
    nax::Array<double, p, q> sorted = nax::sort<q>(raw);
    auto values = awkward<double, s, p>(rng, {ns, np});  // shares p: each row looks in its own line
    auto flat = awkward<float, s>(rng, {ns});             // lacks p: broadcast over the lines, promoted
    for (auto which : {nax::side::left, nax::side::right}) {
      INFO("extents p=" << np << " q=" << nq << " s=" << ns << " right " << (which == nax::side::right));
      const bool right = which == nax::side::right;
      auto count = [&](index_t row, double v) {
        index_t c = 0;
        for (index_t j = 0; j < nq; ++j) c += right ? !less(v, sorted(row, j)) : less(sorted(row, j), v);
        return c;
      };
      nax::Array<index_t, p, s> at = nax::searchsorted<q>(sorted, values, which);
      nax_test::check_all(at, [&](const nax_test::index_map& i) { return count(i.at("p"), values(i.at("s"), i.at("p"))); });
      nax::Array<index_t, s, p> at_flat = nax::searchsorted<q>(sorted, flat, which);
      nax_test::check_all(at_flat, [&](const nax_test::index_map& i) { return count(i.at("p"), double(flat(i.at("s")))); });
    }
  }
}

TEST_CASE("quantile (every method, one q or several) and median against numpy's definitions") {
  nax_test::random_source rng(3106);
  for (int trial = 0; trial < 25; ++trial) {
    const index_t np = rng.extent(4), nq = rng.nonzero_extent(7);
    auto x = nax_test::random_array<double, p, q>(rng, {np, nq}, -3.0, 3.0);
    if (x.size() > 0 && rng.chance(0.3)) x.data()[rng.integer(0, x.size() - 1)] = not_a_number;
    nax::Array<double, s> qs({4});
    qs(0) = 0, qs(1) = 1, qs(2) = double(rng.integer(0, 100)) / 100, qs(3) = 0.5;
    // numpy's quantile of the line through (row) at q by method
    auto expect = [&](index_t row, double qv, nax::quantile_method m) {
      std::vector<double> line;
      bool any_nan = false;
      for (index_t j = 0; j < nq; ++j) line.push_back(x(row, j)), any_nan = any_nan || std::isnan(x(row, j));
      if (any_nan) return not_a_number;
      std::sort(line.begin(), line.end());
      const double pos = qv * double(nq - 1), lo = std::floor(pos), hi = std::ceil(pos), w = pos - lo;
      const double a = line[static_cast<std::size_t>(lo)], b = line[static_cast<std::size_t>(hi)];
      switch (m) {
        case nax::quantile_method::linear: return a * (1 - w) + b * w;
        case nax::quantile_method::lower: return a;
        case nax::quantile_method::higher: return b;
        case nax::quantile_method::midpoint: return (a + b) * 0.5;
        case nax::quantile_method::nearest: return w <= 0.5 ? a : b;
      }
      return 0.0;
    };
    using M = nax::quantile_method;
    for (M m : {M::linear, M::lower, M::higher, M::midpoint, M::nearest}) {
      INFO("extents p=" << np << " q=" << nq << " method " << int(m));
      nax::Array<double, p> one = nax::quantile<q>(x, qs(2), m);
      nax_test::check_all(one, [&](const nax_test::index_map& i) { return expect(i.at("p"), qs(2), m); }, 1e-12, 1e-12);
      nax::Array<double, p, s> many = nax::quantile<q>(x, qs, m);
      nax_test::check_all(many, [&](const nax_test::index_map& i) { return expect(i.at("p"), qs(i.at("s")), m); }, 1e-12, 1e-12);
    }
    nax::Array<double, p> med = nax::median<q>(x);
    nax_test::check_all(med, [&](const nax_test::index_map& i) { return expect(i.at("p"), 0.5, M::midpoint); }, 1e-12, 1e-12);
    // integers in floating point (float: floating_t of int)
    auto ints = nax_test::random_array<int, p, q>(rng, {np, nq}, -9, 9);
    nax::Array<double, p> int_median = nax::median<q>(ints);
    nax_test::check_all(int_median, [&](const nax_test::index_map& i) {
      std::vector<int> line;
      for (index_t j = 0; j < nq; ++j) line.push_back(ints(i.at("p"), j));
      std::sort(line.begin(), line.end());
      return (line[static_cast<std::size_t>((nq - 1) / 2)] + line[static_cast<std::size_t>(nq / 2)]) * 0.5;
    });
  }
  nax::Array<double, p, q> empty({3, 0});
  CHECK(nax_test::check_shape_error([&] { (void)nax::median<q>(empty); }, {"'q'", "extent 0"}));
  nax::Array<double, p, q> x({3, 2});
  CHECK_THROWS_WITH_AS((void)nax::quantile<q>(x, 1.5), doctest::Contains("q must be in [0, 1]"), nax::argument_error);
}

TEST_CASE("gradients: sort through its permutation (both directions; reverse and forward mode), top_k's values, quantile") {
  nax_test::random_source rng(3107);
  for (int trial = 0; trial < 20; ++trial) {
    const index_t np = rng.extent(4), nq = rng.extent(7);
    auto x = nax_test::random_array<double, p, q>(rng, {np, nq});  // distinct values, almost surely
    if (nq > 1 && np > 0 && rng.chance(0.5)) x(0, 1) = x(0, 0);    // a tie: the gradient follows the permutation
    auto w = nax_test::random_array<double, q, p>(rng, {nq, np});
    for (bool descending : {false, true}) {
      INFO("extents p=" << np << " q=" << nq << " descending " << descending);
      auto g = nax::grad([&](const auto& z) { return nax::sum(w * nax::sort<q>(nax::sin(z), descending)); })(x);
      // d/dx[a, j] = cos(x[a, j]) * w at the position sort put j
      nax_test::check_all(g, [&](const nax_test::index_map& at) {
        std::vector<double> line;
        for (index_t b = 0; b < nq; ++b) line.push_back(std::sin(x(at.at("p"), b)));
        const auto asc = stable_order(line, false);
        for (index_t i = 0; i < nq; ++i)
          if (asc[static_cast<std::size_t>(descending ? nq - 1 - i : i)] == at.at("q"))
            return std::cos(nax_test::at(x, at)) * w(i, at.at("p"));
        return 1e300;
      }, 1e-12, 1e-12);
    }
    // forward mode: the tangent read through the same permutation
    auto t = nax_test::random_array<double, p, q>(rng, {np, nq});
    for (bool descending : {false, true}) {
      auto [y, dy] = nax::jvp([&](const auto& z) { return nax::sort<q>(z, descending); }, nax::tuple(x), nax::tuple(t));
      nax::Array<double, p, q> ty = dy;
      nax_test::check_all(ty, [&](const nax_test::index_map& at) {
        std::vector<double> line;
        for (index_t b = 0; b < nq; ++b) line.push_back(x(at.at("p"), b));
        const auto asc = stable_order(line, false);
        return t(at.at("p"), asc[static_cast<std::size_t>(descending ? nq - 1 - at.at("q") : at.at("q"))]);
      });
    }
    const index_t kk = rng.integer(0, nq);
    auto wk = nax_test::random_array<double, p, k>(rng, {np, kk});
    auto gk = nax::grad([&](const auto& z) { return nax::sum(wk * nax::top_k<q, k>(z, kk).values); })(x);
    nax_test::check_all(gk, [&](const nax_test::index_map& at) {
      std::vector<double> line;
      for (index_t b = 0; b < nq; ++b) line.push_back(x(at.at("p"), b));
      const auto order = stable_order(line, true, true);
      for (index_t j = 0; j < kk; ++j)
        if (order[static_cast<std::size_t>(j)] == at.at("q")) return wk(at.at("p"), j);
      return 0.0;
    });
    if (nq == 0) continue;
    const double qv = double(rng.integer(0, 100)) / 100;
    auto gq = nax::grad([&](const auto& z) { return nax::sum(nax::quantile<q>(z, qv)); })(x);
    nax_test::check_all(gq, [&](const nax_test::index_map& at) {
      std::vector<double> line;
      for (index_t b = 0; b < nq; ++b) line.push_back(x(at.at("p"), b));
      const auto asc = stable_order(line, false);
      const double pos = qv * double(nq - 1), lo = std::floor(pos), w_hi = pos - lo;
      double d = 0;
      if (asc[static_cast<std::size_t>(lo)] == at.at("q")) d += 1 - w_hi;
      if (asc[static_cast<std::size_t>(std::ceil(pos))] == at.at("q")) d += w_hi;
      return d;
    }, 1e-12, 1e-12);
  }
}

TEST_CASE("sort and argsort per member in vmap, and the gradient per member") {
  nax_test::random_source rng(3108);
  for (int trial = 0; trial < 10; ++trial) {
    const index_t np = rng.extent(4), nq = rng.extent(6);
    auto x = awkward<double, p, q>(rng, {np, nq});
    nax::Array<double, p, q> y = nax::vmap<p>([](const auto& row) { return nax::sort<q>(row, true); })(x);
    nax::Array<double, p, q> want = nax::sort<q>(x, true);
    nax_test::check_all(y, [&](const nax_test::index_map& at) { return nax_test::at(want, at); });
    nax::Array<index_t, p, q> order = nax::vmap<p>([](const auto& row) { return nax::argsort<q>(row); })(x);
    nax::Array<index_t, p, q> want_order = nax::argsort<q>(x);
    nax_test::check_all(order, [&](const nax_test::index_map& at) { return nax_test::at(want_order, at); });
    auto smooth = nax_test::random_array<double, p, q>(rng, {np, nq});
    auto per_member = nax::vmap<p>(nax::grad([](const auto& row) {
      return nax::sum(nax::square(nax::sort<q>(row)) * nax::axis_index<q, double>(nax::extent<q>(row)));
    }))(smooth);
    nax_test::check_all(per_member, [&](const nax_test::index_map& at) {
      std::vector<double> line;
      for (index_t b = 0; b < nq; ++b) line.push_back(smooth(at.at("p"), b));
      const auto asc = stable_order(line, false);
      for (index_t i = 0; i < nq; ++i)
        if (asc[static_cast<std::size_t>(i)] == at.at("q")) return 2.0 * nax_test::at(smooth, at) * double(i);
      return 1e300;
    }, 1e-12, 1e-12);
  }
}
