// Reverse-mode rules of dot (the adjoint is a contraction) and of the relayouts (transpose,
// rename, slice, broadcast_to, split) against finite differences; pytree arguments; forward
// contractions computed once.
#include <boost/hana/define_struct.hpp>

#include "finite_difference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(b);
NAX_AXIS(r);
NAX_AXIS(o);
NAX_AXIS(q);
using nax::index_t;

struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<double, k, j>, w), (nax::Array<double, j>, bias));
};
}  // namespace

TEST_CASE("grad: dot against finite differences (outer, batch and vector operands)") {
  nax_test::random_source rng(201);
  for (int trial = 0; trial < 3; ++trial) {
    index_t nb = 1 + index_t(rng.value<int>(0, 3)), ni = trial == 0 ? 1 : 1 + index_t(rng.value<int>(0, 4));
    index_t nk = 1 + index_t(rng.value<int>(0, 4)), nj = trial == 2 ? 1 : 1 + index_t(rng.value<int>(0, 4));
    INFO("extents b=" << nb << " i=" << ni << " k=" << nk << " j=" << nj);
    auto x = nax_test::random_array<double, b, i, k>(rng, {nb, ni, nk});
    auto y = nax_test::random_array<double, k, b, j>(rng, {nk, nb, nj});
    auto w = nax_test::random_array<double, j, i, b>(rng, {nj, ni, nb});
    auto f = [&](const auto& p, const auto& s) { return nax::sum(nax::tanh(nax::dot<k>(p, s)) * w); };
    auto [gx, gy] = nax::grad<0, 1>(f)(x, y);
    CHECK(nax_ad_test::fd_error([&] { return f(x, y).item(); }, x, gx) < 1e-6);
    CHECK(nax_ad_test::fd_error([&] { return f(x, y).item(); }, y, gy) < 1e-6);
    auto v = nax_test::random_array<double, k>(rng, {nk});
    auto m = nax_test::random_array<double, k, j>(rng, {nk, nj});
    auto g2 = [&](const auto& p, const auto& s) { return nax::sum(nax::square(nax::dot<k>(p, s))); };
    auto [gv, gm] = nax::grad<0, 1>(g2)(v, m);
    CHECK(nax_ad_test::fd_error([&] { return g2(v, m).item(); }, v, gv) < 1e-6);
    CHECK(nax_ad_test::fd_error([&] { return g2(v, m).item(); }, m, gm) < 1e-6);
  }
}

TEST_CASE("grad: a Hana struct of parameters gets a gradient of the same struct; hand-derived values") {
  nax_test::random_source rng(203);
  auto x = nax_test::random_array<double, b, k>(rng, {5, 3});
  auto y = nax_test::random_array<double, b, j>(rng, {5, 2});
  Layer p{nax_test::random_array<double, k, j>(rng, {3, 2}), nax_test::random_array<double, j>(rng, {2})};
  auto loss = [](const auto& params, const auto& xs, const auto& ys) {
    return nax::mean(nax::square(nax::dot<k>(xs, params.w) + params.bias - ys));
  };
  auto [value, g] = nax::value_and_grad(loss)(p, x, y);
  static_assert(std::is_same_v<decltype(g), Layer>);
  // By hand: r = x w + bias - y; dL/dw = 2/(N) x^T r, dL/dbias = 2/N sum_b r, N = 5 * 2.
  nax::Array<double, b, j> res = nax::dot<k>(x, p.w) + p.bias - y;
  double total = 0;
  for (index_t e = 0; e < 5; ++e)
    for (index_t c = 0; c < 2; ++c) total += res(e, c) * res(e, c);
  CHECK(value.item() == doctest::Approx(total / 10).epsilon(1e-12));
  for (index_t c = 0; c < 2; ++c) {
    double gb = 0;
    for (index_t e = 0; e < 5; ++e) gb += 2 * res(e, c) / 10;
    CHECK(g.bias(c) == doctest::Approx(gb).epsilon(1e-12));
    for (index_t f = 0; f < 3; ++f) {
      double gw = 0;
      for (index_t e = 0; e < 5; ++e) gw += 2 * x(e, f) * res(e, c) / 10;
      CHECK(g.w(f, c) == doctest::Approx(gw).epsilon(1e-12));
    }
  }
}

TEST_CASE("grad: the forward contraction is computed once; the backward adds one contraction") {
  nax_test::random_source rng(204);
  auto x = nax_test::random_array<double, b, k>(rng, {6, 4});
  auto w = nax_test::random_array<double, k, j>(rng, {4, 3});
  auto& count = nax::detail::host::materialisation_count();
  auto before = count.load();
  auto g = nax::grad([&](const auto& p) { return nax::sum(nax::square(nax::dot<k>(x, p))); })(w);
  // forward: the contraction and the sum; backward: dot(x, cotangent) only.
  CHECK(count.load() - before == 3);
  nax::Array<double, b, j> h = nax::dot<k>(x, w);
  nax::Array<double, k, j> ref = nax::dot<b>(x, 2.0 * h);
  for (index_t f = 0; f < 4; ++f)
    for (index_t c = 0; c < 3; ++c) CHECK(g(f, c) == doctest::Approx(ref(f, c)).epsilon(1e-12));
}
