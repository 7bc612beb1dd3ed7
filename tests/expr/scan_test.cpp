// expr/scan.hpp against loops written here: cumsum, cumprod, cummax and cummin, forward and
// reverse, along the first, middle and last axis, on random extents (0 and 1 included), bool
// and integer operands, NaN propagation, long lines (the host's blocked two-pass scan), an
// expression as operand and a consumer fused after; the gradients of cumsum (forward and reverse
// mode, and inside vmap), cummax and cummin (ties included), cumprod (lines with zeros: value_and_grad,
// grad(grad), jvp, float and double, inside vmap); assignment in place.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(p);
NAX_AXIS(q);
NAX_AXIS(s);
using nax::index_t;

// The scan of x along `axis` at position `at`, by a loop over that line (from the end when reverse).
template <class R, class V>
R line_scan(const V& x, const std::string& axis, nax_test::index_map at, bool reverse, R init,
            const std::function<R(R, R)>& combine) {
  const index_t n = nax_test::sizes_of(x).at(axis), i = at.at(axis);
  R running = init;
  for (index_t k = reverse ? n - 1 : 0; reverse ? k >= i : k <= i; k += reverse ? -1 : 1) {
    at[axis] = k;
    running = combine(running, static_cast<R>(nax_test::at(x, at)));
  }
  return running;
}

double nan_max(double a, double b) { return std::isnan(a) || a > b ? a : b; }
double nan_min(double a, double b) { return std::isnan(a) || a < b ? a : b; }
constexpr double infinity = std::numeric_limits<double>::infinity();

// The exact derivatives of cumprod along `axis` by its definition, in long double: y_i is the
// product of the x_k at or before i in scan order, so dy_i/dx_j is the product of those without
// x_j, and d2y_i/dx_j dx_m the product without x_j and x_m (j != m). Each comes with the sum of
// its terms' magnitudes (the scale of its rounding error).
struct cumprod_reference {
  std::string axis;
  bool reverse;
  index_t n;

  bool upto(index_t k, index_t i) const { return reverse ? k >= i : k <= i; }  // k at or before i
  template <class V>
  long double x(const V& v, nax_test::index_map at, index_t k) const {
    at[axis] = k;
    return static_cast<long double>(nax_test::at(v, at));
  }
  // The product of the x_k at or before i but j and m (-1: none); of |x_k| when absolute.
  template <class V>
  long double others(const V& v, const nax_test::index_map& at, index_t i, index_t j, index_t m, bool absolute) const {
    long double out = 1;
    for (index_t k = 0; k < n; ++k)
      if (upto(k, i) && k != j && k != m) out *= absolute ? std::fabs(x(v, at, k)) : x(v, at, k);
    return out;
  }
  // d/dx_j of sum(w * cumprod(x)) at j = at[axis].
  template <class V, class W>
  std::pair<long double, long double> gradient(const V& v, const W& w, const nax_test::index_map& at) const {
    const index_t j = at.at(axis);
    long double out = 0, scale = 0;
    for (index_t i = 0; i < n; ++i)
      if (upto(j, i)) {
        out += x(w, at, i) * others(v, at, i, j, -1, false);
        scale += std::fabs(x(w, at, i)) * others(v, at, i, j, -1, true);
      }
    return {out, scale};
  }
  // (H u)_j, H the Hessian of sum(w * cumprod(x)).
  template <class V, class W, class U>
  std::pair<long double, long double> hessian_times(const V& v, const W& w, const U& u,
                                                    const nax_test::index_map& at) const {
    const index_t j = at.at(axis);
    long double out = 0, scale = 0;
    for (index_t m = 0; m < n; ++m)
      for (index_t i = 0; i < n; ++i)
        if (m != j && upto(j, i) && upto(m, i)) {
          out += x(u, at, m) * x(w, at, i) * others(v, at, i, j, m, false);
          scale += std::fabs(x(u, at, m) * x(w, at, i)) * others(v, at, i, j, m, true);
        }
    return {out, scale};
  }
  // The tangent of cumprod(x) for the tangent t, at i = at[axis].
  template <class V, class U>
  std::pair<long double, long double> tangent(const V& v, const U& t, const nax_test::index_map& at) const {
    const index_t i = at.at(axis);
    long double out = 0, scale = 0;
    for (index_t j = 0; j < n; ++j)
      if (upto(j, i)) {
        out += x(t, at, j) * others(v, at, i, j, -1, false);
        scale += std::fabs(x(t, at, j)) * others(v, at, i, j, -1, true);
      }
    return {out, scale};
  }
};

// Every element of `actual` within tolerance * (1 + the magnitude of its reference's terms).
template <class V, class F>
void check_scaled(const V& actual, F&& expected, double tolerance, const std::string& what) {
  int mismatches = 0;
  nax_test::for_each_index(actual, [&](const nax_test::index_map& at) {
    const auto [e, scale] = expected(at);
    const long double a = nax_test::at(actual, at);
    if (!(std::fabs(a - e) <= tolerance * (1 + scale)) && ++mismatches <= 3)
      FAIL_CHECK(what << " at " << nax_test::describe(at) << ": nax " << double(a) << ", reference " << double(e));
  });
  CHECK_MESSAGE(mismatches == 0, what << ": " << mismatches << " mismatches");
}

// Zeros in x on some lines along `axis`: one, two or three at random positions (possibly the
// same), at the first, the last or both ends, or everywhere; other lines have none.
template <class V>
void put_zeros(V& x, const std::string& axis, nax_test::random_source& rng) {
  const index_t n = nax_test::sizes_of(x).at(axis);
  std::map<nax_test::index_map, std::vector<bool>> lines;
  const auto names = nax_test::names_of(typename V::axes_type{});
  nax_test::for_each_index(x, [&](const nax_test::index_map& at) {
    auto key = at;
    key.erase(axis);
    auto [line, fresh] = lines.try_emplace(key, std::vector<bool>(static_cast<std::size_t>(n), false));
    auto& zero = line->second;
    if (fresh) {
      const index_t kind = rng.integer(0, 7);
      auto any = [&] { zero[static_cast<std::size_t>(rng.integer(0, n - 1))] = true; };
      for (index_t k = 1; k <= 3; ++k)
        if (kind >= k && kind <= 3) any();
      if (kind == 4 || kind == 6) zero.front() = true;
      if (kind == 5 || kind == 6) zero.back() = true;
      if (kind == 7) zero.assign(zero.size(), true);
    }
    if (zero[static_cast<std::size_t>(at.at(axis))]) {
      index_t offset = 0;
      for (std::size_t k = 0; k < names.size(); ++k) offset += at.at(names[k]) * x.strides()[k];
      x.data()[offset] = 0;
    }
  });
}

// cumprod<A>'s derivatives on x with axes XL (w with WL, another order), scanned both ways.
template <class T, class A, class XL, class WL>
void check_cumprod_derivatives(nax_test::random_source& rng) {
  const std::string axis(nax::axis_name<A>());
  auto sizes = rng.sizes({"p", "q", "s"}, 3);
  sizes[axis] = rng.extent(6);
  auto x = nax_test::random_array_of<T, XL>(rng, sizes, T(-1.5), T(1.5));
  put_zeros(x, axis, rng);
  auto w = nax_test::random_array_of<T, WL>(rng, sizes, T(-1), T(1));
  auto u = nax_test::random_array_of<T, XL>(rng, sizes, T(-1), T(1));
  const double tolerance = std::is_same_v<T, float> ? 3e-6 : 1e-14;
  for (bool reverse : {false, true}) {
    const std::string type = std::is_same_v<T, float> ? "float" : "double";
    INFO(type << " along " << axis << ", extents " << nax_test::describe(sizes) << ", reverse " << reverse);
    const cumprod_reference ref{axis, reverse, sizes.at(axis)};
    auto f = [&](const auto& z) { return nax::sum(w * nax::cumprod<A>(z, reverse)); };
    auto [value, g] = nax::value_and_grad(f)(x);
    long double expected = 0, scale = 0;
    nax_test::for_each_index(x, [&](const nax_test::index_map& at) {
      expected += nax_test::at(w, at) * ref.others(x, at, at.at(axis), -1, -1, false);
      scale += std::fabs(nax_test::at(w, at)) * ref.others(x, at, at.at(axis), -1, -1, true);
    });
    CHECK(std::fabs(value.item() - expected) <= tolerance * (1 + scale));
    check_scaled(g, [&](const auto& at) { return ref.gradient(x, w, at); }, tolerance, "grad");
    // the Hessian times u, reverse over reverse: d/dx of d/ds f(x + s u) at s = 0 (and u H u)
    auto along_u = [&](const auto& step, const auto& z) { return f(z + step * u); };
    auto [uhu, hu] = nax::grad<0, 1>(nax::grad<0>(along_u))(nax::full<T>(T(0)), x);
    check_scaled(hu, [&](const auto& at) { return ref.hessian_times(x, w, u, at); }, tolerance, "grad(grad)");
    long double expected_uhu = 0, scale_uhu = 0;
    nax_test::for_each_index(x, [&](const nax_test::index_map& at) {
      const auto [e, scale] = ref.hessian_times(x, w, u, at);
      expected_uhu += nax_test::at(u, at) * e;
      scale_uhu += std::fabs(nax_test::at(u, at)) * scale;
    });
    CHECK(std::fabs(uhu.item() - expected_uhu) <= tolerance * (1 + scale_uhu));
    // the tangent of cumprod itself, at every element
    auto [y, dy] = nax::jvp([&](const auto& z) { return nax::cumprod<A>(z, reverse); }, nax::tuple(x), nax::tuple(u));
    check_scaled(dy, [&](const auto& at) { return ref.tangent(x, u, at); }, tolerance, "jvp");
  }
}
}  // namespace

TEST_CASE("cumsum, cumprod, cummax and cummin along each axis, forward and reverse, against loops") {
  nax_test::random_source rng(2301);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t np = rng.extent(4), nq = rng.extent(6), ns = rng.extent(3);
    auto x = nax_test::random_array<double, p, q, s>(rng, {np, nq, ns}, -1.5, 1.5);
    if (x.size() > 0 && rng.chance(0.3)) x.data()[rng.integer(0, x.size() - 1)] = std::nan("");
    for (bool reverse : {false, true}) {
      INFO("extents p=" << np << " q=" << nq << " s=" << ns << " reverse " << reverse);
      auto plus = [](double a, double b) { return a + b; };
      auto times = [](double a, double b) { return a * b; };
      auto expect = [&](const std::string& axis, double init, std::function<double(double, double)> f) {
        return [&, axis, init, f](const nax_test::index_map& at) { return line_scan<double>(x, axis, at, reverse, init, f); };
      };
      nax::Array<double, p, q, s> a = nax::cumsum<q>(x, reverse);
      nax_test::check_all(a, expect("q", 0.0, plus), 1e-12, 1e-12);
      nax::Array<double, s, q, p> b = nax::cumprod<p>(x, reverse);  // the first axis, another output order
      nax_test::check_all(b, expect("p", 1.0, times), 1e-12, 1e-12);
      nax::Array<double, p, q, s> c = nax::cummax<s>(x, reverse);  // the last axis
      nax_test::check_all(c, expect("s", -infinity, nan_max));
      nax::Array<double, q, p, s> d = nax::cummin<q>(x, reverse);
      nax_test::check_all(d, expect("q", infinity, nan_min));
      // an expression as operand, a consumer fused after
      nax::Array<double, p, q, s> e = nax::cumsum<q>(nax::tanh(x) * 2.0, reverse) + 1.0;
      nax_test::check_all(e, [&](const nax_test::index_map& at) {
        return 1.0 + line_scan<double>(x, "q", at, reverse, 0.0, [](double r, double v) { return r + 2.0 * std::tanh(v); });
      }, 1e-12, 1e-12);
    }
  }
}

TEST_CASE("scans of bool and integer arrays: counts in int32, as JAX") {
  nax_test::random_source rng(2302);
  for (int trial = 0; trial < 20; ++trial) {
    const index_t np = rng.extent(5), nq = rng.extent(5);
    auto x = nax_test::random_array<int, p, q>(rng, {np, nq}, -3, 3);
    auto flags = nax::Array<bool, p, q>(x > 0);
    nax::Array<std::int32_t, p, q> count = nax::cumsum<q>(flags);
    nax_test::check_all(count, [&](const nax_test::index_map& at) {
      return line_scan<std::int32_t>(flags, "q", at, false, 0, [](std::int32_t a, std::int32_t b) { return a + b; });
    });
    nax::Array<bool, p, q> seen = nax::cummax<p>(flags, true);
    nax_test::check_all(seen, [&](const nax_test::index_map& at) {
      return line_scan<bool>(flags, "p", at, true, false, [](bool a, bool b) { return a || b; });
    });
    nax::Array<int, q, p> product = nax::cumprod<q>(x);
    nax_test::check_all(product, [&](const nax_test::index_map& at) {
      return line_scan<int>(x, "q", at, false, 1, [](int a, int b) { return a * b; });
    });
  }
}

TEST_CASE("long lines: the blocked two-pass scan, forward and reverse") {
  nax_test::random_source rng(2303);
  for (index_t n : {index_t(1) << 16, (index_t(1) << 17) + 3}) {
    for (index_t lines : {1, 3}) {
      INFO("n " << n << " lines " << lines);
      nax::Array<std::int64_t, p, q> x({lines, n});
      for (auto& e : x) e = rng.integer(-5, 5);
      for (bool reverse : {false, true}) {
        nax::Array<std::int64_t, p, q> a = nax::cumsum<q>(x, reverse);
        nax::Array<std::int64_t, p, q> m = nax::cummax<q>(x * 0 + nax::remainder(nax::axis_index<q, std::int64_t>(n), 1000), reverse);
        bool ok = true;
        for (index_t r = 0; r < lines; ++r) {
          std::int64_t running = 0, best = std::numeric_limits<std::int64_t>::lowest();
          for (index_t k = 0; k < n; ++k) {
            const index_t i = reverse ? n - 1 - k : k;
            running += x(r, i);
            best = std::max<std::int64_t>(best, i % 1000);
            ok = ok && a(r, i) == running && m(r, i) == best;
          }
        }
        CHECK(ok);
      }
    }
  }
}

TEST_CASE("cumsum's gradient: the cotangent summed from the other end; jvp; per member in vmap") {
  nax_test::random_source rng(2304);
  for (int trial = 0; trial < 15; ++trial) {
    const index_t np = rng.extent(4), nq = rng.extent(5);
    auto x = nax_test::random_array<double, p, q>(rng, {np, nq});
    auto w = nax_test::random_array<double, q, p>(rng, {nq, np});
    for (bool reverse : {false, true}) {
      INFO("extents p=" << np << " q=" << nq << " reverse " << reverse);
      auto f = [&](const auto& z) { return nax::sum(w * nax::cumsum<q>(nax::sin(z), reverse)); };
      auto g = nax::grad(f)(x);
      // d/dx[i] = cos(x[i]) * (sum of w over the positions whose scan includes i)
      nax_test::check_all(g, [&](const nax_test::index_map& at) {
        return std::cos(nax_test::at(x, at)) * line_scan<double>(w, "q", at, !reverse, 0.0, std::plus<double>{});
      }, 1e-12, 1e-12);
      // forward mode: <grad, t> = jvp(f)(x; t)
      auto t = nax_test::random_array<double, p, q>(rng, {np, nq});
      auto [value, tangent] = nax::jvp(f, nax::tuple(x), nax::tuple(t));
      double expected = 0;
      for (index_t k = 0; k < x.size(); ++k) expected += g.data()[k] * t.data()[k];
      CHECK(tangent.item() == doctest::Approx(expected).epsilon(1e-12));
      CHECK(value.item() == doctest::Approx(f(x).item()).epsilon(1e-14));
    }
    // per-member gradients: each row of p is a member
    auto per_member = nax::vmap<p>(nax::grad([&](const auto& row) { return nax::sum(nax::square(nax::cumsum<q>(row))); }))(x);
    nax_test::check_all(per_member, [&](const nax_test::index_map& at) {
      double total = 0;
      const index_t i = at.at("q");
      for (index_t k = i; k < nq; ++k) total += 2.0 * line_scan<double>(x, "q", {{"p", at.at("p")}, {"q", k}}, false, 0.0, std::plus<double>{});
      return total;
    }, 1e-12, 1e-12);
  }
}

TEST_CASE("cummax's and cummin's gradients: to the element that started the running extreme's run") {
  nax_test::random_source rng(2306);
  for (int trial = 0; trial < 20; ++trial) {
    const index_t np = rng.extent(3), nq = rng.extent(7);
    // small integers as values: ties are frequent (each goes to the first of its run)
    nax::Array<double, q, p> x({nq, np});
    for (auto& e : x) e = double(rng.integer(-3, 3));
    auto w = nax_test::random_array<double, p, q>(rng, {np, nq});
    auto check = [&](bool is_max, bool reverse, auto scan) {
      INFO("extents p=" << np << " q=" << nq << (is_max ? " cummax" : " cummin") << " reverse " << reverse);
      auto g = nax::grad(scan)(x);
      // reference: walk each line in scan order, remembering where the current extreme began
      nax::Array<double, q, p> expected({nq, np});
      for (index_t r = 0; r < np; ++r) {
        index_t source = -1;
        double best = 0;
        for (index_t k = 0; k < nq; ++k) {
          const index_t j = reverse ? nq - 1 - k : k;
          const bool better = is_max ? x(j, r) > best : x(j, r) < best;
          if (source < 0 || better) source = j, best = x(j, r);
          expected(source, r) += w(r, j);
        }
      }
      nax_test::check_all(g, [&](const nax_test::index_map& at) { return nax_test::at(expected, at); }, 1e-12, 1e-12);
      // forward mode agrees (the dot-product test)
      auto t = nax_test::random_array<double, q, p>(rng, {nq, np});
      auto [value, tangent] = nax::jvp(scan, nax::tuple(x), nax::tuple(t));
      double dot = 0;
      for (index_t k = 0; k < x.size(); ++k) dot += g.data()[k] * t.data()[k];
      CHECK(tangent.item() == doctest::Approx(dot).epsilon(1e-12));
      (void)value;
    };
    for (bool reverse : {false, true}) {
      check(true, reverse, [&](const auto& z) { return nax::sum(w * nax::cummax<q>(z, reverse)); });
      check(false, reverse, [&](const auto& z) { return nax::sum(w * nax::cummin<q>(z, reverse)); });
    }
  }
}

TEST_CASE("cumprod's derivatives, exact on lines with zeros: value_and_grad, grad(grad), jvp") {
  nax_test::random_source rng(2307);
  for (int trial = 0; trial < 12; ++trial) {
    check_cumprod_derivatives<double, q, nax::axes<p, q, s>, nax::axes<s, p, q>>(rng);
    check_cumprod_derivatives<float, p, nax::axes<q, s, p>, nax::axes<p, q, s>>(rng);
    check_cumprod_derivatives<double, s, nax::axes<s, p, q>, nax::axes<q, s, p>>(rng);
    check_cumprod_derivatives<float, q, nax::axes<s, q, p>, nax::axes<q, p, s>>(rng);
  }
}

TEST_CASE("cumprod's first and second derivatives per member in vmap, on lines with zeros") {
  nax_test::random_source rng(2308);
  for (int trial = 0; trial < 10; ++trial) {
    nax_test::index_map sizes{{"p", rng.extent(4)}, {"q", rng.extent(6)}};
    auto x = nax_test::random_array_of<double, nax::axes<q, p>>(rng, sizes, -1.5, 1.5);
    put_zeros(x, "q", rng);
    auto w = nax_test::random_array<double, q>(rng, {sizes.at("q")});
    auto u = nax_test::random_array_of<double, nax::axes<p, q>>(rng, sizes, -1.0, 1.0);
    for (bool reverse : {false, true}) {
      INFO("extents " << nax_test::describe(sizes) << ", reverse " << reverse);
      const cumprod_reference ref{"q", reverse, sizes.at("q")};
      auto member = [&](const auto& line) { return nax::sum(w * nax::cumprod<q>(line, reverse)); };
      nax::Array<double, p, q> g = nax::vmap<p>(nax::grad(member))(x);
      check_scaled(g, [&](const auto& at) { return ref.gradient(x, w, at); }, 1e-14, "vmap(grad)");
      nax::Array<double, p, q> hu = nax::vmap<p>([&](const auto& line, const auto& direction) {
        auto along = [&](const auto& step, const auto& z) { return member(z + step * direction); };
        return std::get<1>(nax::grad<0, 1>(nax::grad<0>(along))(nax::full<double>(0.0), line));
      })(x, u);
      check_scaled(hu, [&](const auto& at) { return ref.hessian_times(x, w, u, at); }, 1e-14, "vmap(grad(grad))");
    }
  }
}

TEST_CASE("a scan assigned to an array: in place, from its own memory, into other orders and strided views") {
  nax_test::random_source rng(2305);
  for (int trial = 0; trial < 10; ++trial) {
    const index_t np = rng.nonzero_extent(4), nq = rng.nonzero_extent(6);
    INFO("extents p=" << np << " q=" << nq);
    auto x = nax_test::random_array<double, p, q>(rng, {np, nq});
    const nax::Array<double, p, q> original = x;
    auto expected = [&](bool reverse) {
      return [&, reverse](const nax_test::index_map& at) {
        return line_scan<double>(original, "q", at, reverse, 0.0, std::plus<double>{});
      };
    };
    nax::Array<double, p, q> y({np, nq});
    y = nax::cumsum<q>(x);  // one pass from x's memory
    nax_test::check_all(y, expected(false), 1e-12, 1e-12);
    x = nax::cumsum<q>(x, true);  // x is its own operand
    nax_test::check_all(x, expected(true), 1e-12, 1e-12);
    x = original;
    nax::Array<double, q, p> t({nq, np});
    t = nax::cumsum<q>(x);  // another axis order: assigned, then scanned in place
    nax_test::check_all(t, expected(false), 1e-12, 1e-12);
    // a destination that is not row-major (every other column of a wider array): the general path
    nax::Array<double, p, q> wide({np, 2 * nq});
    nax::ArrayView<double, p, q> every_other(wide.data(), {np, nq}, {2 * nq, 2});
    every_other.assign(nax::cumsum<q>(x));
    nax_test::check_all(every_other, expected(false), 1e-12, 1e-12);
    // a destination overlapping the operand at other positions (x shifted by one element)
    if (nq > 1) {
      nax::Array<double, q> row({nq});
      for (index_t k = 0; k < nq; ++k) row(k) = original(0, k);
      nax::ArrayView<double, q> head(row.data(), {nq - 1}, {1}), tail(row.data() + 1, {nq - 1}, {1});
      tail.assign(nax::cumsum<q>(head));
      for (index_t k = 0; k + 1 < nq; ++k) {
        double running = 0;
        for (index_t m = 0; m <= k; ++m) running += original(0, m);
        CHECK(row(k + 1) == doctest::Approx(running).epsilon(1e-12));
      }
    }
  }
}
