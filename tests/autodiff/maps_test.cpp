// grad composed with the maps: grad inside pmap (JAX issue 3970: the gradient of pmean of the
// devices' losses is the gradient of the mean loss over all data), per-device gradients
// averaged with pmean, and vmap(grad(f)) for per-example gradients.
#include "finite_difference.hpp"

namespace {
NAX_AXIS(dev);
NAX_AXIS(ex);
NAX_AXIS(all);
NAX_AXIS(in);
using nax::index_t;

auto loss = [](const auto& w, const auto& xs, const auto& ys) { return nax::mean(nax::square(nax::dot<in>(xs, w) - ys)); };
}  // namespace

TEST_CASE("grad inside pmap on 4 host devices: grad of pmean(loss) equals the single-device gradient of the mean loss") {
  nax_test::random_source rng(301);
  auto x = nax_test::random_array<double, dev, ex, in>(rng, {4, 8, 3});
  auto y = nax_test::random_array<double, dev, ex>(rng, {4, 8});
  auto w = nax_test::random_array<double, in>(rng, {3});
  nax::Mesh<dev> mesh(nax::host::devices(4), {4});

  // Single device, all 32 examples.
  nax::Array<double, all, in> x_all = nax::merge<dev, ex, all>(x);
  nax::Array<double, all> y_all = nax::merge<dev, ex, all>(y);
  auto ref = nax::grad(loss)(w, x_all, y_all);

  auto g = nax::pmap<dev>([](const auto& p, const auto& xs, const auto& ys) {
    return nax::grad([&](const auto& q) { return nax::pmean<dev>(loss(q, xs, ys)); })(p);
  }, mesh)(w, x, y);
  static_assert(std::is_same_v<decltype(g), nax::Array<double, in>>);  // replicated
  for (index_t f = 0; f < 3; ++f) CHECK(g(f) == doctest::Approx(ref(f)).epsilon(1e-12));

  // The JAX program's way: each device's gradient of its own loss, averaged with pmean.
  auto [l2, g2] = nax::pmap<dev>([](const auto& p, const auto& xs, const auto& ys) {
    auto [l, gd] = nax::value_and_grad(loss)(p, xs, ys);
    return nax::tuple(l, nax::pmean<dev>(gd));
  }, mesh)(w, x, y);
  static_assert(std::is_same_v<decltype(l2), nax::Array<double, dev>>);  // one loss per device
  for (index_t f = 0; f < 3; ++f) CHECK(g2(f) == doctest::Approx(ref(f)).epsilon(1e-12));
  CHECK(nax::mean(l2).item() == doctest::Approx(loss(w, x_all, y_all).item()).epsilon(1e-12));

  // The same with vmap (no mesh): psum is a local sum.
  auto g3 = nax::vmap<dev>([](const auto& xs, const auto& ys, const auto& p) {
    return nax::grad([&](const auto& q) { return nax::pmean<dev>(loss(q, xs, ys)); })(p);
  }, nax::in_axes(nax::mapped, nax::mapped, nax::none), nax::out_axes(nax::replicated))(x, y, w);
  nax::Array<double, in> g3a = g3;
  for (index_t f = 0; f < 3; ++f) CHECK(g3a(f) == doctest::Approx(ref(f)).epsilon(1e-12));
}

TEST_CASE("vmap(grad(f)): per-example gradients") {
  nax_test::random_source rng(302);
  auto x = nax_test::random_array<double, ex, in>(rng, {5, 3});
  auto y = nax_test::random_array<double, ex>(rng, {5});
  auto w = nax_test::random_array<double, in>(rng, {3});
  nax::Array<double, ex, in> per = nax::vmap<ex>([&](const auto& xe, const auto& ye) {
    return nax::grad([&](const auto& q) { return nax::square(nax::dot<in>(xe, q) - ye); })(w);
  })(x, y);
  for (index_t e = 0; e < 5; ++e) {
    double r = -y(e);
    for (index_t f = 0; f < 3; ++f) r += x(e, f) * w(f);
    for (index_t f = 0; f < 3; ++f) CHECK(per(e, f) == doctest::Approx(2 * r * x(e, f)).epsilon(1e-12));
  }
}

TEST_CASE("grad of a function that calls vmap: a replicated argument's gradient sums over the members") {
  // The backward pass runs after the vmap returned: its psums over the vmapped axis are local.
  nax_test::random_source rng(303);
  auto xs = nax_test::random_array<double, ex, in>(rng, {4, 3});
  auto w = nax_test::random_array<double, in>(rng, {3});
  auto total = [&](const auto& q) {
    return nax::sum(nax::vmap<ex>([](const auto& x, const auto& p) { return nax::tanh(nax::sum(x * p)); },
                                  nax::in_axes(nax::mapped, nax::none))(xs, q));
  };
  auto g = nax::grad(total)(w);
  for (index_t f = 0; f < 3; ++f) {
    double want = 0;
    for (index_t e = 0; e < 4; ++e) {
      double s = 0;
      for (index_t k = 0; k < 3; ++k) s += xs(e, k) * w(k);
      want += (1 - std::tanh(s) * std::tanh(s)) * xs(e, f);
    }
    CHECK(g(f) == doctest::Approx(want).epsilon(1e-12));
  }
}
