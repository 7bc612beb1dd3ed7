// nax::vjp (autodiff/vjp.hpp): outputs that are not scalars, several outputs, evaluations
// inside f, a pullback called many times (the rows of a Jacobian, against central
// differences), a pullback that outlives the arguments, a std::vector of layers, and the errors.
#include <boost/hana/define_struct.hpp>
#include <string>
#include <vector>

#include "../autodiff/finite_difference.hpp"

namespace {
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(ex);
using nax::index_t;

// y[out] = tanh(x[in] . w[in, out]) * 2 + sum(x), with the layer evaluated.
auto layer = [](const auto& x, const auto& w) {
  auto h = nax::eval(nax::tanh(nax::dot<in>(x, w)));
  return nax::eval(h * 2.0 + nax::sum(x));
};
auto layer_lazy = [](const auto& x, const auto& w) { return nax::tanh(nax::dot<in>(x, w)) * 2.0 + nax::sum(x); };
}  // namespace

TEST_CASE("vjp of a vector-valued function: the pullback against grad of <ct, f> and central differences") {
  nax_test::random_source rng(1801);
  for (index_t n : {index_t{0}, index_t{1}, index_t{3}}) {
    for (index_t m : {index_t{1}, index_t{4}}) {
      INFO("in " << n << ", out " << m);
      auto x = nax_test::random_array<double, in>(rng, {n});
      auto w = nax_test::random_array<double, in, out>(rng, {n, m});
      auto ct = nax_test::random_array<double, out>(rng, {m});
      auto [y, pullback] = nax::vjp(layer)(x, w);
      static_assert(std::is_same_v<decltype(y), nax::Array<double, out>>);
      nax::Array<double, out> y_lazy = layer_lazy(x, w);
      for (index_t j = 0; j < m; ++j) CHECK(y(j) == doctest::Approx(y_lazy(j)).epsilon(1e-13));
      auto [gx, gw] = pullback(ct);
      static_assert(std::is_same_v<decltype(gw), nax::Array<double, in, out>>);
      auto inner = [&](const auto& a, const auto& b) { return nax::sum(ct * layer_lazy(a, b)); };
      auto [rx, rw] = nax::grad<0, 1>(inner)(x, w);
      for (index_t i = 0; i < n; ++i) {
        CHECK(gx(i) == doctest::Approx(rx(i)).epsilon(1e-12));
        for (index_t j = 0; j < m; ++j) CHECK(gw(i, j) == doctest::Approx(rw(i, j)).epsilon(1e-12));
      }
      CHECK(nax_ad_test::fd_error([&] { return inner(x, w).item(); }, w, gw) < 1e-6);
      CHECK(nax_ad_test::fd_error([&] { return inner(x, w).item(); }, x, gx) < 1e-6);
      // A cotangent in another axis order than the output: by name.
      if (n > 0) {
        auto [gx2, gw2] = pullback(nax::transpose<out>(ct));
        CHECK(gx2(0) == doctest::Approx(rx(0)).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("vjp: the pullback called many times gives the rows of the Jacobian; it is linear") {
  nax_test::random_source rng(1802);
  auto x = nax_test::random_array<double, in>(rng, {3});
  auto w = nax_test::random_array<double, in, out>(rng, {3, 4});
  auto [y, pullback] = nax::vjp([&](const auto& xv) { return layer(xv, w); })(x);
  // Row j of dy/dx, by central differences: (y(x + h e_i) - y(x - h e_i)) / 2h.
  const double h = 1e-6;
  for (index_t j = 0; j < 4; ++j) {
    nax::Array<double, out> e_j = nax::zeros<double, out>(4);
    e_j(j) = 1;
    auto [row] = pullback(e_j);
    for (index_t i = 0; i < 3; ++i) {
      nax::Array<double, in> xp = x, xm = x;
      xp(i) += h;
      xm(i) -= h;
      nax::Array<double, out> yp = layer_lazy(xp, w), ym = layer_lazy(xm, w);
      CHECK(row(i) == doctest::Approx((yp(j) - ym(j)) / (2 * h)).epsilon(1e-6));
    }
  }
  auto a = nax_test::random_array<double, out>(rng, {4});
  auto b = nax_test::random_array<double, out>(rng, {4});
  auto [ga] = pullback(a);
  auto [gb] = pullback(b);
  auto [gab] = pullback(nax::eval(a + b * 3.0));
  for (index_t i = 0; i < 3; ++i) CHECK(gab(i) == doctest::Approx(ga(i) + 3 * gb(i)).epsilon(1e-12));
}

TEST_CASE("vjp: several outputs (a tuple), an output that is an argument, and a pullback that outlives the arguments") {
  nax_test::random_source rng(1803);
  auto x0 = nax_test::random_array<double, in>(rng, {3});
  auto w0 = nax_test::random_array<double, in, out>(rng, {3, 2});
  auto f = [](const auto& x, const auto& w) {
    auto y = layer(x, w);
    return nax::tuple(y, nax::sum(nax::square(y)), x);  // a vector, a scalar, and x itself
  };
  auto [values, pullback] = nax::vjp(f)(nax::Array<double, in>(x0), nax::Array<double, in, out>(w0));  // temporaries
  auto& [y, s, xs] = values;
  nax::Array<double, out> y_lazy = layer_lazy(x0, w0);
  CHECK(s.item() == doctest::Approx(nax::sum(nax::square(y_lazy)).item()).epsilon(1e-13));
  CHECK(xs(1) == x0(1));
  auto ct_y = nax_test::random_array<double, out>(rng, {2});
  auto ct_x = nax_test::random_array<double, in>(rng, {3});
  nax::Array<double> ct_s(std::array<index_t, 0>{}, std::vector<double>{0.5});
  auto [gx, gw] = pullback(nax::tuple(ct_y, ct_s, ct_x));
  auto inner = [&](const auto& a, const auto& b) {
    auto yy = layer_lazy(a, b);
    return nax::sum(ct_y * yy) + 0.5 * nax::sum(nax::square(yy)) + nax::sum(ct_x * a);
  };
  auto [rx, rw] = nax::grad<0, 1>(inner)(x0, w0);
  for (index_t i = 0; i < 3; ++i) {
    CHECK(gx(i) == doctest::Approx(rx(i)).epsilon(1e-12));
    for (index_t j = 0; j < 2; ++j) CHECK(gw(i, j) == doctest::Approx(rw(i, j)).epsilon(1e-12));
  }
}

TEST_CASE("vjp: a cotangent of the wrong extent raises, naming the output, the axis and both extents") {
  nax_test::random_source rng(1804);
  auto x = nax_test::random_array<double, in>(rng, {3});
  auto w = nax_test::random_array<double, in, out>(rng, {3, 4});
  auto [y, pullback] = nax::vjp(layer)(x, w);
  std::string message;
  try {
    pullback(nax::zeros<double, out>(5));
  } catch (const nax::shape_error& e) {
    message = e.what();
  }
  CHECK(message == "nax: vjp: the cotangent of output 1 has extent 5 along 'out', the output has 4");
}

TEST_CASE("vmap(vjp(f)): per-member pullbacks with mapped cotangents") {
  nax_test::random_source rng(1805);
  auto xs = nax_test::random_array<double, ex, in>(rng, {3, 2});
  auto cts = nax_test::random_array<double, ex, out>(rng, {3, 4});
  auto w = nax_test::random_array<double, in, out>(rng, {2, 4});
  nax::Array<double, ex, in> g = nax::vmap<ex>([&](const auto& x, const auto& ct) {
    auto [y, pullback] = nax::vjp([&](const auto& xv) { return layer(xv, w); })(x);
    auto [gx] = pullback(ct);
    return gx;
  })(xs, cts);
  for (index_t e = 0; e < 3; ++e) {
    nax::Array<double, in> x = nax::sum<ex>(nax::slice<ex>(xs, e, e + 1));
    nax::Array<double, out> ct = nax::sum<ex>(nax::slice<ex>(cts, e, e + 1));
    auto r = nax::grad([&](const auto& a) { return nax::sum(ct * layer_lazy(a, w)); })(x);
    for (index_t i = 0; i < 2; ++i) CHECK(g(e, i) == doctest::Approx(r(i)).epsilon(1e-12));
  }
}

namespace {
struct Dense {
  BOOST_HANA_DEFINE_STRUCT(Dense, (nax::Array<double, in, out>, w), (nax::Array<double, out>, bias));
};
}  // namespace

TEST_CASE("vjp of a std::vector of layers (a run-time depth): against grad of <ct, f>, central differences, and again") {
  nax_test::random_source rng(1806);
  const index_t nb = 3, width = 4;
  auto x = nax_test::random_array<double, ex, in>(rng, {nb, width});
  auto ct = nax_test::random_array<double, ex, out>(rng, {nb, width});
  auto net = [&](const std::vector<Dense>& ls) {
    nax::Array<double, ex, out> h = nax::rename<in, out>(x);
    for (const Dense& l : ls) h = nax::tanh(nax::dot<in>(nax::rename<out, in>(h), l.w) + l.bias);  // h = f(h)
    return h;
  };
  for (std::size_t depth : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {
    INFO("depth " << depth);
    std::vector<Dense> layers(depth);
    for (Dense& l : layers) {
      l.w = nax_test::random_array<double, in, out>(rng, {width, width});
      for (double& v : l.w) v *= 0.8;
      l.bias = nax_test::random_array<double, out>(rng, {width});
    }
    auto [y, pullback] = nax::vjp(net)(layers);
    auto [g] = pullback(ct);
    static_assert(std::is_same_v<decltype(g), std::vector<Dense>>);
    REQUIRE(g.size() == depth);
    auto weighted = [&](const std::vector<Dense>& ls) { return nax::sum(ct * net(ls)); };
    auto want = nax::grad(weighted)(layers);
    auto [g_again] = pullback(ct * 2.0);  // fresh gradients each call: exactly twice
    for (std::size_t k = 0; k < depth; ++k) {
      for (index_t p = 0; p < width; ++p) {
        CHECK(g[k].bias(p) == doctest::Approx(want[k].bias(p)).epsilon(1e-12));
        CHECK(g_again[k].bias(p) == doctest::Approx(2 * g[k].bias(p)).epsilon(1e-12));
        for (index_t q = 0; q < width; ++q) CHECK(g[k].w(p, q) == doctest::Approx(want[k].w(p, q)).epsilon(1e-12));
      }
      CHECK(nax_ad_test::fd_error([&] { return weighted(layers).item(); }, layers[k].w, g[k].w) < 1e-6);
    }
  }
}
