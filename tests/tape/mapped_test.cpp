// Evaluation inside vmap and xmap (DESIGN 5b): nax::eval of a value that varies over mapped
// axes gives an evaluated mapped value, which the function goes on using with the mapped axes
// hidden; inside grad those evaluations are recorded, so vmap(grad(f)) gives per-member
// gradients and xmap of a function that calls grad gives the gradient of the mean loss with
// pmean. Checked against plain loops, the same programs as one lazy expression, and central
// differences in double.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "../autodiff/finite_difference.hpp"
#include "../support/error_text.hpp"

namespace {
NAX_AXIS(ex);
NAX_AXIS(in);
NAX_AXIS(hid);
NAX_AXIS(dev);
NAX_AXIS(all);
NAX_AXIS(grp);
NAX_AXIS(lay);
using nax::index_t;

std::string error_of(auto&& call) { return nax_test::error_text<nax::argument_error>(call); }

// A one-hidden-layer model, lazily and with its intermediates evaluated.
auto lazy_prediction = [](const auto& x, const auto& w1, const auto& w2) {
  return nax::dot<hid>(nax::tanh(nax::dot<in>(x, w1)), w2);
};
auto evaluated_prediction = [](const auto& x, const auto& w1, const auto& w2) {
  auto h = nax::eval(nax::tanh(nax::dot<in>(x, w1)));  // inside a map: an evaluated mapped value
  auto p = nax::eval(nax::dot<hid>(h, w2));
  return p;
};

double tanh_layer(const auto& x, const auto& w1, const auto& w2, index_t e, index_t nin, index_t nhid) {
  double p = 0;
  for (index_t j = 0; j < nhid; ++j) {
    double s = 0;
    for (index_t i = 0; i < nin; ++i) s += x(e, i) * w1(i, j);
    p += std::tanh(s) * w2(j);
  }
  return p;
}
}  // namespace

TEST_CASE("eval inside vmap: an evaluated mapped value, against a plain loop") {
  nax_test::random_source rng(1701);
  for (index_t n : {index_t{0}, index_t{1}, index_t{5}}) {
    for (index_t nin : {index_t{1}, index_t{3}}) {
      INFO("ex " << n << ", in " << nin);
      auto x = nax_test::random_array<double, ex, in>(rng, {n, nin});
      nax::Array<double, in, ex> xt = x;  // the mapped axis last in memory
      auto w1 = nax_test::random_array<double, in, hid>(rng, {nin, 4});
      auto w2 = nax_test::random_array<double, hid>(rng, {4});
      auto f = [&](const auto& row) {
        auto p = evaluated_prediction(row, w1, w2);
        auto q = nax::eval(p * p + row);  // another evaluation, reading one
        return nax::tuple(q, p);
      };
      for (int order = 0; order < 2; ++order) {
        auto [q, p] = order == 0 ? nax::vmap<ex>(f)(x) : nax::vmap<ex>(f)(xt);
        static_assert(std::is_same_v<decltype(q), nax::Array<double, ex, in>>);
        static_assert(std::is_same_v<decltype(p), nax::Array<double, ex>>);
        for (index_t e = 0; e < n; ++e) {
          const double want = tanh_layer(x, w1, w2, e, nin, 4);
          CHECK(p(e) == doctest::Approx(want).epsilon(1e-13));
          for (index_t i = 0; i < nin; ++i) CHECK(q(e, i) == doctest::Approx(want * want + x(e, i)).epsilon(1e-13));
        }
      }
    }
  }
}

TEST_CASE("eval inside vmap: a collective's result, nested maps, and values kept after f returns") {
  nax_test::random_source rng(1702);
  auto x = nax_test::random_array<double, grp, ex, in>(rng, {3, 4, 2});
  // Evaluated: a psum over the mapped axis (replicated, but the map has not resolved it yet)
  // and a value that varies over both mapped axes of two nested vmaps.
  auto inner = [](const auto& row) {
    auto total = nax::eval(nax::psum<ex>(row));  // sums over ex, inside vmap<ex>
    auto centred = nax::eval(row - total / nax::cast<double>(nax::axis_size<ex>()));
    return nax::eval(centred * 2.0);
  };
  nax::Array<double, grp, ex, in> y = nax::vmap<grp>([&](const auto& block) { return nax::vmap<ex>(inner)(block); })(x);
  for (index_t g = 0; g < 3; ++g)
    for (index_t i = 0; i < 2; ++i) {
      double mean = 0;
      for (index_t e = 0; e < 4; ++e) mean += x(g, e, i) / 4;
      for (index_t e = 0; e < 4; ++e) CHECK(y(g, e, i) == doctest::Approx(2 * (x(g, e, i) - mean)).epsilon(1e-13));
    }
}

TEST_CASE("eval inside xmap on 4 host devices: equal to vmap, with a collective over the mesh") {
  nax_test::random_source rng(1703);
  auto x = nax_test::random_array<double, dev, ex, in>(rng, {4, 3, 2});
  auto w1 = nax_test::random_array<double, in, hid>(rng, {2, 5});
  auto w2 = nax_test::random_array<double, hid>(rng, {5});
  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  auto f = [](const auto& xs, const auto& a, const auto& b) {
    auto p = evaluated_prediction(xs, a, b);               // varies over dev (this device's part) and ex
    auto mean_p = nax::eval(nax::pmean<dev>(p));           // over the mesh, evaluated on each device
    return nax::eval(p - mean_p);
  };
  nax::Array<double, dev, ex> on_mesh = nax::xmap<nax::bind<dev, dev>>(f, mesh)(x, w1, w2);
  nax::Array<double, dev, ex> vectorised =
      nax::vmap<dev>(f, nax::in_axes(nax::mapped, nax::none, nax::none))(x, w1, w2);
  nax::Array<double, all, in> flat = nax::merge<dev, ex, all>(x);
  for (index_t e = 0; e < 3; ++e) {
    double mean = 0;
    for (index_t d = 0; d < 4; ++d) mean += tanh_layer(flat, w1, w2, d * 3 + e, 2, 5) / 4;
    for (index_t d = 0; d < 4; ++d) {
      const double want = tanh_layer(flat, w1, w2, d * 3 + e, 2, 5) - mean;
      CHECK(on_mesh(d, e) == doctest::Approx(want).epsilon(1e-12));
      CHECK(vectorised(d, e) == doctest::Approx(want).epsilon(1e-12));
    }
  }
}

TEST_CASE("vmap(grad(f)) with evaluations inside: per-example gradients") {
  nax_test::random_source rng(1704);
  for (index_t n : {index_t{0}, index_t{1}, index_t{4}}) {
    INFO("examples " << n);
    auto x = nax_test::random_array<double, ex, in>(rng, {n, 3});
    auto y = nax_test::random_array<double, ex>(rng, {n});
    auto w1 = nax_test::random_array<double, in, hid>(rng, {3, 4});
    auto w2 = nax_test::random_array<double, hid>(rng, {4});
    auto per_example = [&](auto predict) {
      return nax::vmap<ex>([&](const auto& xe, const auto& ye) {
        return nax::grad<0, 1, 2>([&](const auto& a, const auto& b, const auto& xv) {
          return nax::square(predict(xv, a, b) - ye);
        })(w1, w2, xe);
      })(x, y);
    };
    auto [g1, g2, gx] = per_example(evaluated_prediction);
    auto [l1, l2, lx] = per_example(lazy_prediction);
    static_assert(std::is_same_v<decltype(g1), nax::Array<double, ex, in, hid>>);
    static_assert(std::is_same_v<decltype(gx), nax::Array<double, ex, in>>);
    double largest = 0;
    for (index_t e = 0; e < n; ++e) {
      for (index_t i = 0; i < 3; ++i) {
        CHECK(gx(e, i) == doctest::Approx(lx(e, i)).epsilon(1e-12));
        for (index_t j = 0; j < 4; ++j) {
          CHECK(g1(e, i, j) == doctest::Approx(l1(e, i, j)).epsilon(1e-12));
          largest = std::max(largest, std::abs(g1(e, i, j)));
        }
      }
      for (index_t j = 0; j < 4; ++j) CHECK(g2(e, j) == doctest::Approx(l2(e, j)).epsilon(1e-12));
    }
    if (n > 0) CHECK(largest > 1e-3);  // not the silent 0
    // Central differences of the last example's loss over w1, against its gradient.
    if (n > 0) {
      nax::Array<double, in> xl = nax::sum<ex>(nax::slice<ex>(x, n - 1, n));
      const double yl = y(n - 1);
      nax::Array<double, in, hid> g_last = nax::sum<ex>(nax::slice<ex>(g1, n - 1, n));
      CHECK(nax_ad_test::fd_error([&] { return std::pow(nax::item(lazy_prediction(xl, w1, w2)) - yl, 2); }, w1,
                                  g_last) < 1e-6);
    }
  }
}

TEST_CASE("vmap(grad(f)): a loop over layers evaluated per step, per-example gradients of every layer") {
  nax_test::random_source rng(1705);
  constexpr int depth = 4;
  auto x = nax_test::random_array<double, ex, in>(rng, {3, 4});
  std::array<nax::Array<double, in, hid>, depth> layers;
  for (auto& l : layers) l = nax_test::random_array<double, in, hid>(rng, {4, 4}) * 0.5;
  auto loop = [](const auto& ls, const auto& xe) {
    auto h = nax::eval(nax::rename<in, hid>(xe));
    for (const auto& l : ls) h = nax::eval(nax::tanh(nax::dot<in>(nax::rename<hid, in>(h), l)));
    return nax::sum(nax::square(h));
  };
  auto one_expression = [](const auto& ls, const auto& xe) {  // the same four layers, unrolled
    auto layer = [](const auto& h, const auto& l) { return nax::tanh(nax::dot<in>(nax::rename<hid, in>(h), l)); };
    return nax::sum(nax::square(
        layer(layer(layer(layer(nax::rename<in, hid>(xe), ls[0]), ls[1]), ls[2]), ls[3])));
  };
  auto per = [&](auto f) {
    return nax::vmap<ex>([&](const auto& xe) { return nax::grad([&](const auto& ls) { return f(ls, xe); })(layers); },
                         nax::in_axes(nax::mapped))(x);
  };
  auto g = per(loop);
  auto want = per(one_expression);
  for (int k = 0; k < depth; ++k)
    for (index_t e = 0; e < 3; ++e)
      for (index_t i = 0; i < 4; ++i)
        for (index_t j = 0; j < 4; ++j) CHECK(g[k](e, i, j) == doctest::Approx(want[k](e, i, j)).epsilon(1e-12));
}

TEST_CASE("xmap on 4 host devices of a function that calls grad, evaluating inside: the gradient of the mean loss") {
  nax_test::random_source rng(1706);
  auto x = nax_test::random_array<double, dev, ex, in>(rng, {4, 5, 3});
  auto y = nax_test::random_array<double, dev, ex>(rng, {4, 5});
  auto w1 = nax_test::random_array<double, in, hid>(rng, {3, 4});
  auto w2 = nax_test::random_array<double, hid>(rng, {4});
  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  nax::Array<double, all, in> x_all = nax::merge<dev, ex, all>(x);
  nax::Array<double, all> y_all = nax::merge<dev, ex, all>(y);
  auto mean_loss = [&](const auto& a, const auto& b) {
    return nax::mean(nax::square(lazy_prediction(x_all, a, b) - y_all));
  };
  auto [r1, r2] = nax::grad<0, 1>(mean_loss)(w1, w2);

  // pmean of the devices' losses inside grad: the gradient is replicated.
  auto [g1, g2] = nax::xmap<nax::bind<dev, dev>>([](const auto& a, const auto& b, const auto& xs, const auto& ys) {
    return nax::grad<0, 1>([&](const auto& p, const auto& q) {
      return nax::pmean<dev>(nax::mean(nax::square(evaluated_prediction(xs, p, q) - ys)));
    })(a, b);
  }, mesh)(w1, w2, x, y);
  static_assert(std::is_same_v<decltype(g1), nax::Array<double, in, hid>>);
  // Each device's gradient of its own loss, averaged with pmean (the JAX program's way).
  auto [v, h1, h2] = nax::xmap<nax::bind<dev, dev>>([](const auto& a, const auto& b, const auto& xs, const auto& ys) {
    auto [l, gs] = nax::value_and_grad<0, 1>([&](const auto& p, const auto& q) {
      return nax::mean(nax::square(evaluated_prediction(xs, p, q) - ys));
    })(a, b);
    return nax::tuple(l, nax::pmean<dev>(std::get<0>(gs)), nax::pmean<dev>(std::get<1>(gs)));
  }, mesh)(w1, w2, x, y);
  static_assert(std::is_same_v<decltype(v), nax::Array<double, dev>>);
  double largest = 0;
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) {
      CHECK(g1(i, j) == doctest::Approx(r1(i, j)).epsilon(1e-12));
      CHECK(h1(i, j) == doctest::Approx(r1(i, j)).epsilon(1e-12));
      largest = std::max(largest, std::abs(r1(i, j)));
    }
  CHECK(largest > 1e-3);
  for (index_t j = 0; j < 4; ++j) {
    CHECK(g2(j) == doctest::Approx(r2(j)).epsilon(1e-12));
    CHECK(h2(j) == doctest::Approx(r2(j)).epsilon(1e-12));
  }
  CHECK(nax::mean(v).item() == doctest::Approx(mean_loss(w1, w2).item()).epsilon(1e-12));
  CHECK(nax_ad_test::fd_error([&] { return mean_loss(w1, w2).item(); }, w1, g1) < 1e-6);
}

TEST_CASE("vmap(grad(f)): evaluations that do not vary over the per-member axis, each member's gradient through them") {
  // w's evaluations are the same for every example, but each example's loss reads them: their
  // cotangents are per example, and their backward passes run once per example (tape.hpp).
  nax_test::random_source rng(1707);
  auto program = [](auto evaluate) {
    return [evaluate](const auto& q, const auto& xe) {
      auto pre = [&](const auto& e) {
        if constexpr (decltype(evaluate)::value) return nax::eval(e);
        else return e;
      };
      auto doubled = pre(q * 2.0);              // does not vary over ex
      auto t = pre(nax::tanh(doubled));         // reads one that does not either
      auto h = nax::eval(t * xe);               // varies over ex
      return nax::sum(nax::square(h)) + nax::sum(t * doubled) + nax::pmean<ex>(nax::sum(t));  // (a member-free part too)
    };
  };
  for (index_t n : {index_t{0}, index_t{1}, index_t{4}}) {
    INFO("examples " << n);
    const index_t nin = rng.nonzero_extent(4);
    auto x = nax_test::random_array<double, ex, in>(rng, {n, nin});
    nax::Array<double, in, ex> xt = x;  // the mapped axis last in memory
    auto w = nax_test::random_array<double, in>(rng, {nin});
    auto per_example = [&](auto evaluate, const auto& xs) {
      auto f = program(evaluate);
      return nax::vmap<ex>([&](const auto& xe) { return nax::grad([&](const auto& q) { return f(q, xe); })(w); })(xs);
    };
    nax::Array<double, ex, in> want = per_example(std::false_type{}, x);
    nax::Array<double, ex, in> got = per_example(std::true_type{}, x), got_t = per_example(std::true_type{}, xt);
    for (index_t e = 0; e < n; ++e)
      for (index_t i = 0; i < nin; ++i) {
        // d/dw of t^2 x^2 + t * 2w + mean_e(t), t = tanh(2w): a plain formula.
        const double t = std::tanh(2 * w(i)), dt = 2 * (1 - t * t);
        const double plain = 2 * t * dt * x(e, i) * x(e, i) + dt * 2 * w(i) + 2 * t + dt;
        CHECK(want(e, i) == doctest::Approx(plain).epsilon(1e-12));
        CHECK(got(e, i) == doctest::Approx(plain).epsilon(1e-12));
        CHECK(got_t(e, i) == doctest::Approx(plain).epsilon(1e-12));
      }
  }
}

TEST_CASE("vmap(vmap(grad(f))): an evaluation that varies over one mapped axis and not the other, either kept per member") {
  nax_test::random_source rng(1711);
  auto x = nax_test::random_array<double, grp, ex, in>(rng, {2, 3, 4});
  auto s = nax_test::random_array<double, grp, in>(rng, {2, 4});
  auto w = nax_test::random_array<double, in>(rng, {4});
  auto run = [&](auto evaluate, auto averaged_over_groups) {
    auto pre = [](const auto& e) {
      if constexpr (decltype(evaluate)::value) return nax::eval(e);
      else return e;
    };
    return nax::vmap<grp>([&](const auto& xg, const auto& sg) {
      return nax::vmap<ex>([&](const auto& xe) {
        return nax::grad([&](const auto& q) {
          auto u = pre(nax::sin(q * sg));        // varies over grp, not ex
          auto h = pre(nax::tanh(u * xe));       // varies over both
          if constexpr (decltype(averaged_over_groups)::value) return nax::pmean<grp>(nax::sum(h * u));
          else return nax::sum(h * u);
        })(w);
      }, nax::in_axes(nax::mapped))(xg);
    }, nax::in_axes(nax::mapped, nax::mapped))(x, s);
  };
  // Each (group, example)'s own gradient; then the groups' mean loss's, per example (the
  // cotangent reaching w varies over both axes, of which the output varies over ex only).
  nax::Array<double, grp, ex, in> per = run(std::true_type{}, std::false_type{});
  nax::Array<double, grp, ex, in> per_lazy = run(std::false_type{}, std::false_type{});
  nax::Array<double, grp, ex, in> mean = run(std::true_type{}, std::true_type{});
  nax::Array<double, grp, ex, in> mean_lazy = run(std::false_type{}, std::true_type{});
  for (index_t g = 0; g < 2; ++g)
    for (index_t e = 0; e < 3; ++e)
      for (index_t i = 0; i < 4; ++i) {
        auto one = [&](index_t gg) {  // d/dw of tanh(u x) u, u = sin(w s)
          const double u = std::sin(w(i) * s(gg, i)), du = std::cos(w(i) * s(gg, i)) * s(gg, i);
          const double h = std::tanh(u * x(gg, e, i));
          return du * ((1 - h * h) * x(gg, e, i) * u + h);
        };
        CHECK(per(g, e, i) == doctest::Approx(one(g)).epsilon(1e-12));
        CHECK(per_lazy(g, e, i) == doctest::Approx(one(g)).epsilon(1e-12));
        CHECK(mean(g, e, i) == doctest::Approx((one(0) + one(1)) / 2).epsilon(1e-12));
        CHECK(mean_lazy(g, e, i) == doctest::Approx((one(0) + one(1)) / 2).epsilon(1e-12));
      }
}

TEST_CASE("xmap on 4 host devices: each device's gradient through an evaluation that does not vary over the mesh") {
  nax_test::random_source rng(1712);
  auto x = nax_test::random_array<double, dev, ex, in>(rng, {4, 3, 2});
  auto w = nax_test::random_array<double, in>(rng, {2});
  auto f = [](const auto& q, const auto& xs) {
    return nax::grad([&](const auto& p) {
      auto scaled = nax::eval(nax::tanh(p * 3.0));  // the same on every device
      return nax::mean(nax::square(nax::eval(nax::sum<in>(xs * scaled))));
    })(q);
  };
  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  nax::Array<double, dev, in> on_mesh = nax::xmap<nax::bind<dev, dev>>(f, mesh)(w, x);
  nax::Array<double, dev, in> vectorised = nax::vmap<dev>(f, nax::in_axes(nax::none, nax::mapped))(w, x);
  double largest = 0;
  for (index_t d = 0; d < 4; ++d)
    for (index_t i = 0; i < 2; ++i) {
      double want = 0;
      const double t = std::tanh(3 * w(i));
      for (index_t e = 0; e < 3; ++e) {
        double p = 0;
        for (index_t k = 0; k < 2; ++k) p += x(d, e, k) * std::tanh(3 * w(k));
        want += 2 * p * x(d, e, i) * 3 * (1 - t * t) / 3;
      }
      CHECK(on_mesh(d, i) == doctest::Approx(want).epsilon(1e-12));
      CHECK(vectorised(d, i) == doctest::Approx(want).epsilon(1e-12));
      largest = std::max(largest, std::abs(want));
    }
  CHECK(largest > 1e-3);
}

TEST_CASE("vmap(vjp(f)): the pullback called twice, through evaluations that vary over the members or not") {
  // (The second call used to add each member's cotangent into every member's gradient: the
  // tape kept the first call's per-member axes when it linked the second's gradients.)
  nax_test::random_source rng(1713);
  auto x = nax_test::random_array<double, ex, in>(rng, {3, 2});
  auto w = nax_test::random_array<double, in>(rng, {2});
  for (int shared = 0; shared < 2; ++shared) {
    INFO((shared ? "exp(w) does not vary over ex" : "every evaluation varies over ex"));
    auto [first, second] = nax::vmap<ex>([&](const auto& xe) {
      auto [y, pullback] = nax::vjp([&](const auto& q) {
        if (shared) {
          auto t = nax::eval(nax::exp(q));  // the same for every example
          return nax::eval(t * xe);         // each example's own output, over in
        }
        return nax::eval(nax::exp(q) * xe);
      })(w);
      auto ct = nax::eval(xe * 0.0 + 1.0);
      auto once = std::get<0>(pullback(ct));
      auto again = std::get<0>(pullback(ct));
      return nax::tuple(once, again);
    })(x);
    static_assert(std::is_same_v<decltype(first), nax::Array<double, ex, in>>);
    for (index_t e = 0; e < 3; ++e)
      for (index_t i = 0; i < 2; ++i) {
        CHECK(first(e, i) == doctest::Approx(std::exp(w(i)) * x(e, i)).epsilon(1e-13));
        CHECK(second(e, i) == first(e, i));
      }
  }
}

TEST_CASE("vmap(grad(f)) of a std::vector of layers: per-example gradients, equal to a std::array's and a plain loop") {
  nax_test::random_source rng(1708);
  auto loss = [](const auto& ls, const auto& xe) {
    auto h = nax::eval(xe * 1.0);
    for (const auto& l : ls) h = nax::eval(nax::tanh(h * l));
    return nax::sum(h);
  };
  // d/dl of each example's loss, by the chain rule through tanh layers h_k = tanh(h_{k-1} * l_k).
  auto reference = [](const auto& x, const std::vector<nax::Array<double, in>>& ls, index_t e, index_t i) {
    std::vector<double> h{x(e, i)};
    for (const auto& l : ls) h.push_back(std::tanh(h.back() * l(i)));
    std::vector<double> g(ls.size());
    double ct = 1;
    for (std::size_t k = ls.size(); k-- > 0;) {
      const double d = ct * (1 - h[k + 1] * h[k + 1]);
      g[k] = d * h[k];
      ct = d * ls[k](i);
    }
    return g;
  };
  for (index_t n : {index_t{0}, index_t{1}, index_t{4}}) {
    for (std::size_t depth : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      INFO("examples " << n << ", layers " << depth);
      const index_t nin = rng.nonzero_extent(3);
      auto x = nax_test::random_array<double, ex, in>(rng, {n, nin});
      nax::Array<double, in, ex> xt = x;  // the mapped axis last in memory
      std::vector<nax::Array<double, in>> layers;
      for (std::size_t k = 0; k != depth; ++k) layers.push_back(nax_test::random_array<double, in>(rng, {nin}));
      auto per_example = [&](const auto& xs) {
        return nax::vmap<ex>([&](const auto& xe) {
          return nax::grad([&](const auto& ls) { return loss(ls, xe); })(layers);
        })(xs);
      };
      for (int order = 0; order < 2; ++order) {
        auto g = order == 0 ? per_example(x) : per_example(xt);
        REQUIRE(g.size() == depth);
        std::vector<nax::Array<double, ex, in>> got;
        for (const auto& gk : g) got.emplace_back(gk);
        for (index_t e = 0; e < n; ++e)
          for (index_t i = 0; i < nin; ++i) {
            auto want = reference(x, layers, e, i);
            for (std::size_t k = 0; k != depth; ++k) CHECK(got[k](e, i) == doctest::Approx(want[k]).epsilon(1e-12));
          }
      }
    }
  }
  // The same with the layers in a std::array (a static tree): equal, member by member.
  auto x = nax_test::random_array<double, ex, in>(rng, {3, 2});
  std::array<nax::Array<double, in>, 2> fixed{nax_test::random_array<double, in>(rng, {2}),
                                               nax_test::random_array<double, in>(rng, {2})};
  std::vector<nax::Array<double, in>> layers{fixed[0], fixed[1]};
  auto gv = nax::vmap<ex>([&](const auto& xe) {
    return nax::value_and_grad([&](const auto& ls) { return loss(ls, xe); })(layers);
  })(x);
  auto ga = nax::vmap<ex>([&](const auto& xe) {
    return nax::value_and_grad([&](const auto& ls) { return loss(ls, xe); })(fixed);
  })(x);
  nax::Array<double, ex> vv = std::get<0>(gv), va = std::get<0>(ga);
  double largest = 0;
  for (std::size_t k = 0; k != 2; ++k) {
    nax::Array<double, ex, in> a = std::get<1>(gv)[k], b = std::get<1>(ga)[k];
    for (index_t e = 0; e < 3; ++e)
      for (index_t i = 0; i < 2; ++i) {
        CHECK(a(e, i) == b(e, i));
        largest = std::max(largest, std::abs(a(e, i)));
      }
  }
  CHECK(largest > 1e-3);
  for (index_t e = 0; e < 3; ++e) CHECK(vv(e) == va(e));
  // The gradient of the members' mean loss (pmean inside f): one gradient per layer.
  std::vector<nax::Array<double, in>> g;
  nax::vmap<ex>([&](const auto& xe) {
    g = nax::grad([&](const auto& ls) { return nax::pmean<ex>(loss(ls, xe)); })(layers);
    return nax::sum(xe);  // (vmap needs an output)
  })(x);
  REQUIRE(g.size() == 2);
  for (index_t i = 0; i < 2; ++i) {
    double g0 = 0, g1 = 0;
    for (index_t e = 0; e < 3; ++e) {
      auto want = reference(x, layers, e, i);
      g0 += want[0] / 3;
      g1 += want[1] / 3;
    }
    CHECK(g[0](i) == doctest::Approx(g0).epsilon(1e-12));
    CHECK(g[1](i) == doctest::Approx(g1).epsilon(1e-12));
  }
}

TEST_CASE("xmap on 4 host devices: a std::vector of layers sharded along hid, differentiated on each device") {
  // Model parallel: every layer's hid axis is split over the mesh, so inside f the vector's
  // elements are this device's parts (mapped values); grad owns them, and the gradients come
  // back sharded as the layers are. Against grad of the same loss on one device.
  nax_test::random_source rng(1710);
  auto x = nax_test::random_array<double, ex, in>(rng, {5, 3});
  std::vector<nax::Array<double, in, hid>> layers;
  for (int k = 0; k < 3; ++k) layers.push_back(nax_test::random_array<double, in, hid>(rng, {3, 8}));
  auto readout = nax_test::random_array<double, hid>(rng, {8});
  // Each layer: h <- tanh(h + sum_hid(tanh(h * w) * r)); on the mesh hid is mapped, summed by psum.
  // (The first layer outside the loop: inside xmap a psum's result has its own type.)
  auto loss = [](const auto& ls, const auto& xs, const auto& r, auto total_over_hid) {
    auto layer = [&](const auto& h, const auto& w) {
      return nax::eval(nax::tanh(h + total_over_hid(nax::tanh(h * w) * r)));
    };
    auto h = layer(xs, ls[0]);
    for (std::size_t k = 1; k < ls.size(); ++k) h = layer(h, ls[k]);
    return nax::eval(nax::mean(nax::square(h)));  // (evaluated: h is local)
  };
  auto local = [](auto e) { return nax::sum<hid>(e); };
  auto want = nax::grad([&](const auto& ls) { return loss(ls, x, readout, local); })(layers);
  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  auto [value, g] = nax::xmap<nax::bind<hid, dev>>([&](const auto& ls, const auto& xs, const auto& r) {
    return nax::value_and_grad([&](const auto& p) {
      return loss(p, xs, r, [](auto e) { return nax::psum<hid>(e); });
    })(ls);
  }, mesh)(layers, x, readout);
  CHECK(value.item() == doctest::Approx(loss(layers, x, readout, local).item()).epsilon(1e-12));
  REQUIRE(g.size() == 3);
  double largest = 0;
  for (std::size_t k = 0; k != 3; ++k) {
    nax::Array<double, in, hid> gk = g[k];
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 8; ++j) {
        CHECK(gk(i, j) == doctest::Approx(want[k](i, j)).epsilon(1e-12));
        largest = std::max(largest, std::abs(gk(i, j)));
      }
  }
  CHECK(largest > 1e-3);
  CHECK(nax_ad_test::fd_error([&] { return loss(layers, x, readout, local).item(); }, layers[1], want[1]) < 1e-6);
}

TEST_CASE("grad of a function that calls vmap with an evaluation inside: the backward pass runs after the vmap") {
  // The entry recorded inside the vmap varies over ex; at the replicated argument's leaf its
  // cotangent is summed over the members after the vmap has returned (a local sum).
  nax_test::random_source rng(1709);
  auto xs = nax_test::random_array<double, ex, in>(rng, {4, 3});
  auto w = nax_test::random_array<double, in>(rng, {3});
  auto total = [&](auto evaluate) {
    return [&, evaluate](const auto& q) {
      return nax::sum(nax::vmap<ex>([&](const auto& x, const auto& p) {
        if constexpr (decltype(evaluate)::value) return nax::eval(nax::tanh(nax::sum(x * p))) * 2.0;
        else return nax::tanh(nax::sum(x * p)) * 2.0;
      }, nax::in_axes(nax::mapped, nax::none))(xs, q));
    };
  };
  auto g = nax::grad(total(std::true_type{}))(w);
  auto want = nax::grad(total(std::false_type{}))(w);
  for (index_t i = 0; i < 3; ++i) CHECK(g(i) == doctest::Approx(want(i)).epsilon(1e-12));
  CHECK(nax::max(nax::abs(want)).item() > 1e-3);  // (not a silent 0)
}

TEST_CASE("take<lay>(w, l) of an argument in a loop of evaluations: each step's gradient reaches layer l's slice only") {
  // The blocks of a model stacked along one axis (examples/gpt): the gradient of take<lay>(w, l)
  // is added into w's slice at l (autodiff/at_position.hpp). Against the same loop over a
  // std::vector of separate layers, per example (vmap), for the whole batch, and on a mesh of 2
  // host devices with pmean (the batch's sum runs over the devices into the slice).
  nax_test::random_source rng(1903);
  nax::Mesh<dev> mesh(nax::host::devices(2), {2});
  for (int trial = 0; trial < 6; ++trial) {
    const index_t nl = rng.nonzero_extent(4), n = rng.nonzero_extent(4), nb = rng.extent(4), per_device = rng.extent(3);
    // Three steps, a layer possibly used twice; with two or more layers, the last one unused.
    std::vector<index_t> steps;
    for (int s = 0; s < 3; ++s) steps.push_back(rng.integer(0, std::max<index_t>(nl - 2, 0)));
    INFO("layers " << nl << " width " << n << " examples " << nb << " per device " << per_device << " steps "
                   << steps[0] << steps[1] << steps[2]);
    nax::Array<double, hid, lay, in> w = nax_test::random_array<double, hid, lay, in>(rng, {n, nl, n}) * 0.7;  // lay inside
    std::vector<nax::Array<double, hid, in>> layers;
    for (index_t l = 0; l < nl; ++l) layers.push_back(nax::take<lay>(w, l));
    auto forward = [&](const auto& layer_at, const auto& x) {
      auto h = nax::eval(x);
      for (index_t l : steps) h = nax::eval(nax::rename<hid, in>(nax::tanh(nax::dot<in>(h, layer_at(l)))));
      return h;
    };
    // (grad keeps the buffers f's result reads; outside grad, the result is evaluated before h goes.)
    auto loss = [&](const auto& layer_at, const auto& x) { return nax::sum(nax::square(forward(layer_at, x))); };
    auto stacked = [&](const auto& ws, const auto& x) { return loss([&](index_t l) { return nax::take<lay>(ws, l); }, x); };
    auto separate = [&](const auto& ls, const auto& x) { return loss([&](index_t l) -> decltype(auto) { return ls[l]; }, x); };
    auto check = [&](const auto& got, const auto& want_of_layer) {
      for (index_t l = 0; l < nl; ++l) {
        const bool used = std::find(steps.begin(), steps.end(), l) != steps.end();
        for (index_t j = 0; j < n; ++j)
          for (index_t i = 0; i < n; ++i) {
            const double want = want_of_layer(l, j, i);
            CHECK(got(j, l, i) == doctest::Approx(want).epsilon(1e-12));
            if (!used) CHECK(got(j, l, i) == 0.0);
          }
      }
    };
    // Per example.
    auto x = nax_test::random_array<double, ex, in>(rng, {nb, n});
    auto per = nax::vmap<ex>([&](const auto& xe) { return nax::grad([&](const auto& q) { return stacked(q, xe); })(w); })(x);
    static_assert(std::is_same_v<decltype(per), nax::Array<double, ex, hid, lay, in>>);
    auto per_want = nax::vmap<ex>([&](const auto& xe) {
      return nax::grad([&](const auto& ls) { return separate(ls, xe); })(layers);
    })(x);
    for (index_t e = 0; e < nb; ++e)
      check([&](index_t j, index_t l, index_t i) { return per(e, j, l, i); },
            [&](index_t l, index_t j, index_t i) { return per_want[std::size_t(l)](e, j, i); });
    // The whole batch at once.
    auto whole = nax::grad([&](const auto& q) { return stacked(q, x); })(w);
    auto whole_want = nax::grad([&](const auto& ls) { return separate(ls, x); })(layers);
    check(whole, [&](index_t l, index_t j, index_t i) { return whole_want[std::size_t(l)](j, i); });
    // Through a relabelling of the argument (as xmap's view of a sharded one): the same.
    auto relabelled = nax::grad([&](const auto& q) {
      return loss([&](index_t l) { return nax::take<lay>(nax::transpose<lay, in, hid>(q), l); }, x);
    })(w);
    check(relabelled, [&](index_t l, index_t j, index_t i) { return whole_want[std::size_t(l)](j, i); });
    auto value = [&] {
      auto h = forward([&](index_t l) { return nax::take<lay>(w, l); }, x);
      return nax::sum(nax::square(h)).item();
    };
    CHECK(nax_ad_test::fd_error(value, w, whole) < 1e-6);
    // On 2 devices: each device's examples, the mean loss (pmean over the devices).
    auto xd = nax_test::random_array<double, dev, ex, in>(rng, {2, per_device, n});
    auto on_mesh = nax::xmap<nax::bind<dev, dev>>([&](const auto& q, const auto& xs) {
      return nax::grad([&](const auto& p) { return nax::pmean<dev>(stacked(p, xs)); })(q);
    }, mesh)(w, xd);
    static_assert(std::is_same_v<decltype(on_mesh), nax::Array<double, hid, lay, in>>);
    nax::Array<double, all, in> x_all = nax::merge<dev, ex, all>(xd);
    auto mesh_want = nax::grad([&](const auto& ls) { return separate(ls, x_all) * 0.5; })(layers);
    check(on_mesh, [&](index_t l, index_t j, index_t i) { return mesh_want[std::size_t(l)](j, i); });
  }
}
