// nax::jvp (autodiff/jvp.hpp, forward.hpp): forward mode against central differences of the
// directional derivative, and against vjp by the dot-product test <J t, u> = <t, J^T u>, over
// elementwise, reduction (sum, max with ties, prod with zeros), contraction and relayout
// (transpose, slice, rename, concatenate, stack, merge) nodes; several outputs, pytrees,
// vmap(jvp), and the errors.
#include <array>
#include <string>

#include "../autodiff/finite_difference.hpp"

namespace {
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(ex);
NAX_AXIS(two);
NAX_AXIS(all);
using nax::index_t;

// Functions of x[in], w[in, out] with vector outputs over out (and in).
auto layer = [](const auto& x, const auto& w) { return nax::tanh(nax::dot<in>(x, w)) * 2.0 + nax::sum(nax::square(x)); };
auto reductions = [](const auto& x, const auto& w) {
  return nax::max<in>(w * x) + nax::prod<in>(w + 0.5) - nax::min<in>(nax::exp(w) / (1.0 + nax::square(x)));
};
auto relayouts = [](const auto& x, const auto& w) {
  auto wt = nax::transpose<out, in>(w);
  auto first = nax::slice<in>(wt, 0, 2);
  auto joined = nax::concatenate<in>(first, nax::slice<in>(wt, 1, 3));  // 4 along in
  auto stacked = nax::stack<two>(nax::sum<in>(joined), nax::sum<in>(joined * 3.0));
  return nax::sum<two>(nax::sin(stacked)) + nax::sum(nax::rename<in, ex>(x) * 0.5) + nax::sum<all>(nax::merge<in, out, all>(w));
};

// <a, b> over equal axis sets.
double inner(const auto& a, const auto& b) { return nax::sum(a * b).item(); }

template <class F>
void check_against_vjp_and_differences(F f, nax_test::random_source& rng, index_t n, index_t m) {
  auto x = nax_test::random_array<double, in>(rng, {n});
  auto w = nax_test::random_array<double, in, out>(rng, {n, m});
  auto tx = nax_test::random_array<double, in>(rng, {n});
  auto tw = nax_test::random_array<double, in, out>(rng, {n, m});
  auto [y, ty] = nax::jvp(f, nax::tuple(x, w), nax::tuple(tx, tw));
  nax::Array<double, out> y_direct = f(x, w);
  for (index_t j = 0; j < m; ++j) CHECK(y(j) == doctest::Approx(y_direct(j)).epsilon(1e-13));
  // Central differences along (tx, tw).
  const double h = 1e-6;
  nax::Array<double, in> xp = x + tx * h, xm = x - tx * h;
  nax::Array<double, in, out> wp = w + tw * h, wm = w - tw * h;
  nax::Array<double, out> yp = f(xp, wp), ym = f(xm, wm);
  for (index_t j = 0; j < m; ++j) CHECK(ty(j) == doctest::Approx((yp(j) - ym(j)) / (2 * h)).epsilon(1e-6).scale(1));
  // The dot-product test against vjp.
  auto u = nax_test::random_array<double, out>(rng, {m});
  auto [y2, pullback] = nax::vjp(f)(x, w);
  auto [gx, gw] = pullback(u);
  CHECK(inner(ty, u) == doctest::Approx(inner(tx, gx) + inner(tw, gw)).epsilon(1e-11).scale(1));
}
}  // namespace

TEST_CASE("jvp: elementwise, reductions and contractions against central differences and vjp") {
  nax_test::random_source rng(2001);
  for (index_t n : {index_t{1}, index_t{4}})
    for (index_t m : {index_t{0}, index_t{1}, index_t{3}}) {
      INFO("in " << n << ", out " << m);
      check_against_vjp_and_differences(layer, rng, n, m);
      check_against_vjp_and_differences(reductions, rng, n, m);
    }
}

TEST_CASE("jvp: relayouts (transpose, slice, concatenate, stack, rename, merge)") {
  nax_test::random_source rng(2002);
  for (index_t m : {index_t{1}, index_t{3}}) check_against_vjp_and_differences(relayouts, rng, 3, m);
}

TEST_CASE("jvp: a max with ties averages the tangents; a prod with a zero; a constant and stop_gradient") {
  nax::Array<double, in> x({4}, {1.0, 3.0, 3.0, 0.0});
  nax::Array<double, in> t({4}, {1.0, 2.0, 4.0, 8.0});
  auto [v, tv] = nax::jvp([](const auto& a) { return nax::tuple(nax::max(a), nax::prod(a + 0.0), nax::sum(nax::stop_gradient(a)) + 1.0); },
                          nax::tuple(x), nax::tuple(t));
  CHECK(std::get<0>(tv).item() == doctest::Approx(3.0));       // (2 + 4) / 2
  CHECK(std::get<1>(tv).item() == doctest::Approx(8.0 * 9.0));  // only the zero's tangent times 1*3*3
  CHECK(std::get<2>(tv).item() == 0.0);
  CHECK(std::get<1>(v).item() == 0.0);
}

TEST_CASE("jvp: pytree primals, and inside vmap") {
  nax_test::random_source rng(2003);
  std::array<nax::Array<double, in>, 2> p{nax_test::random_array<double, in>(rng, {3}), nax_test::random_array<double, in>(rng, {3})};
  std::array<nax::Array<double, in>, 2> tp{nax_test::random_array<double, in>(rng, {3}), nax_test::random_array<double, in>(rng, {3})};
  auto [v, tv] = nax::jvp([](const auto& q) { return nax::sum(nax::sin(q[0]) * q[1]); }, nax::tuple(p), nax::tuple(tp));
  double want = 0;
  for (index_t i = 0; i < 3; ++i) want += std::cos(p[0](i)) * tp[0](i) * p[1](i) + std::sin(p[0](i)) * tp[1](i);
  CHECK(tv.item() == doctest::Approx(want).epsilon(1e-13));

  auto xs = nax_test::random_array<double, ex, in>(rng, {4, 3});
  auto ts = nax_test::random_array<double, ex, in>(rng, {4, 3});
  nax::Array<double, ex> per = nax::vmap<ex>([](const auto& x, const auto& t) {
    return std::get<1>(nax::jvp([](const auto& a) { return nax::sum(nax::tanh(a)); }, nax::tuple(x), nax::tuple(t)));
  })(xs, ts);
  for (index_t e = 0; e < 4; ++e) {
    double d = 0;
    for (index_t i = 0; i < 3; ++i) d += (1 - std::pow(std::tanh(xs(e, i)), 2)) * ts(e, i);
    CHECK(per(e) == doctest::Approx(d).epsilon(1e-13));
  }
}

TEST_CASE("jvp: an evaluation that depends on an argument, and a tangent of the wrong extent, raise") {
  nax::Array<double, in> x = nax::ones<double, in>(3);
  std::string message;
  try {
    nax::jvp([](const auto& a) { auto h = nax::eval(a * 2.0); return nax::sum(h); }, nax::tuple(x), nax::tuple(x));
  } catch (const nax::argument_error& e) {
    message = e.what();
  }
  CHECK(message.find("jvp: f evaluates an intermediate that depends on an argument") != std::string::npos);
  message.clear();
  try {
    nax::jvp([](const auto& a) { return nax::sum(a); }, nax::tuple(x), nax::tuple(nax::ones<double, in>(4)));
  } catch (const nax::shape_error& e) {
    message = e.what();
  }
  CHECK(message == "nax: jvp: a tangent has extent 4 along 'in', its primal has 3");
}

TEST_CASE("jacrev and jacfwd: equal to each other and to central differences; a shared axis name becomes wrt<A>") {
  nax_test::random_source rng(2004);
  auto w = nax_test::random_array<double, in, out>(rng, {3, 2});
  for (index_t n : {index_t{0}, index_t{1}, index_t{3}}) {
    INFO("in " << n);
    auto x = nax_test::random_array<double, in>(rng, {n});
    nax::Array<double, in, out> wn = nax::slice<in>(w, 0, n);
    auto f = [&](const auto& v) { return nax::tanh(nax::dot<in>(v, wn)) + nax::sum(nax::square(v)); };
    auto jr = nax::jacrev(f)(x);
    auto jf = nax::jacfwd(f)(x);
    static_assert(std::is_same_v<decltype(jr), nax::Array<double, out, in>>);
    const double h = 1e-6;
    for (index_t i = 0; i < n; ++i) {
      nax::Array<double, in> xp = x, xm = x;
      xp(i) += h;
      xm(i) -= h;
      nax::Array<double, out> yp = f(xp), ym = f(xm);
      for (index_t j = 0; j < 2; ++j) {
        CHECK(jr(j, i) == doctest::Approx(jf(j, i)).epsilon(1e-12));
        CHECK(jr(j, i) == doctest::Approx((yp(j) - ym(j)) / (2 * h)).epsilon(1e-6));
      }
    }
  }
  // An elementwise f: the Jacobian of y[in] by x[in] is diagonal, J[in, wrt<in>].
  auto x = nax_test::random_array<double, in>(rng, {4});
  auto jd = nax::jacrev([](const auto& v) { return nax::sin(v); })(x);
  static_assert(std::is_same_v<decltype(jd), nax::Array<double, in, nax::wrt<in>>>);
  for (index_t i = 0; i < 4; ++i)
    for (index_t k = 0; k < 4; ++k) CHECK(jd(i, k) == doctest::Approx(i == k ? std::cos(x(i)) : 0.0));
}
