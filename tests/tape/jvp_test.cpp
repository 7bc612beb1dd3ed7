// nax::jvp (autodiff/jvp.hpp, forward.hpp): forward mode against central differences of the
// directional derivative, and against vjp by the dot-product test <J t, u> = <t, J^T u>, over
// elementwise, reduction (sum, max with ties, prod with zeros), contraction and relayout
// (transpose, slice, rename, concatenate, stack, merge) nodes; several outputs, pytrees,
// vmap(jvp), the errors; and through evaluations inside f (loops over layers and time steps).
#include <array>
#include <boost/hana/define_struct.hpp>
#include <string>
#include <vector>

#include "../autodiff/finite_difference.hpp"
#include "../support/error_text.hpp"

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

struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<double, in, out>, w), (nax::Array<double, out>, bias));
};

std::string error_of(auto&& call) { return nax_test::error_text<nax::argument_error>(call); }

// <a, b> over equal axis sets.
double inner(const auto& a, const auto& b) { return nax::sum(a * b).item(); }

// differences false: f cuts a derivative with stop_gradient, which central differences do not.
template <class F>
void check_against_vjp_and_differences(F f, nax_test::random_source& rng, index_t n, index_t m, bool differences = true) {
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
  if (differences)
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

TEST_CASE("jvp: a tangent of the wrong extent, a custom_vjp and a raw read of a value with a tangent raise") {
  nax::Array<double, in> x = nax::ones<double, in>(3);
  std::string message;
  try {
    nax::jvp([](const auto& a) { return nax::sum(a); }, nax::tuple(x), nax::tuple(nax::ones<double, in>(4)));
  } catch (const nax::shape_error& e) {
    message = e.what();
  }
  CHECK(message == "nax: jvp: a tangent has extent 4 along 'in', its primal has 3");
  auto softplus = nax::custom_vjp([](const auto& v) { return std::pair(nax::log1p(nax::exp(v)), nax::eval(v)); },
                                  [](const auto& v, const auto& ct) { return nax::sigmoid(v) * ct; });
  CHECK(error_of([&] { nax::jvp([&](const auto& a) { return nax::sum(softplus(a)); }, nax::tuple(x), nax::tuple(x)); })
            .find("forward mode cannot go through a custom_vjp") != std::string::npos);
  CHECK(error_of([&] {
          nax::jvp([](const auto& a) { auto h = nax::eval(a * 2.0); return nax::sum(h) * h.data()[0]; }, nax::tuple(x), nax::tuple(x));
        }).find("nax: jvp: f reads the output of recorded evaluation #1 of f, (in=3) through data()") != std::string::npos);
  // hessian (grad(grad)'s passes) does not go through evaluations yet: a loud error.
  CHECK(error_of([&] { nax::hessian([](const auto& v) { return nax::sum(nax::eval(v * 2.0)); })(x); })
            .find("nax: hessian: f evaluates an intermediate that depends on its argument") != std::string::npos);
}

// Forward mode through evaluations (record.hpp): each evaluation inside f that depends on an
// argument evaluates its tangent beside its value. Owned: f returns an evaluated value; else
// an expression over f's locals (valid inside jvp, which keeps them; dangling outside).
namespace {
template <bool Owned>
auto evaluated_program() {
  return [](const auto& v, const auto& w) {
    auto s = nax::eval(nax::sin(v));               // a recorded nax::eval
    nax::Array<double, in> t = s;                  // a copy
    nax::Array<double, in> h = t * 1.5;
    h = h * h;                                     // an overwrite: a fresh buffer inside jvp
    {
      nax::Array<double, in> scoped = nax::exp(h * 0.1);
      h = h + scoped;                              // scoped dies here
    }
    auto block = nax::checkpoint([](const auto& a, const auto& b) { return nax::tanh(nax::dot<in>(a, b)); });
    nax::Array<double, out> y = block(h, w);       // checkpoint: f, evaluated, under jvp
    auto c = nax::eval(nax::stop_gradient(s) * 2.0);  // no tangent
    auto result = y * nax::sum(t * s + c) + nax::sum(std::move(h));  // s used twice
    if constexpr (Owned) return nax::eval(result);
    else return result;
  };
}
}  // namespace

TEST_CASE("jvp through evaluations: eval, copies, overwrites, scopes, an intermediate used twice, stop_gradient, checkpoint") {
  nax_test::random_source rng(2005);
  auto evaluated = evaluated_program<false>();     // its result reads f's locals
  auto evaluated_value = evaluated_program<true>();  // its result is evaluated: callable outside jvp too
  auto lazy = [](const auto& v, const auto& w) {
    auto s = nax::sin(v);
    auto h = nax::square(s * 1.5) + nax::exp(nax::square(s * 1.5) * 0.1);
    return nax::tanh(nax::dot<in>(h, w)) * nax::sum(s * s + nax::stop_gradient(s) * 2.0) + nax::sum(h);
  };
  for (index_t n : {index_t{0}, index_t{1}, index_t{4}})
    for (index_t m : {index_t{1}, index_t{3}}) {
      INFO("in " << n << ", out " << m);
      auto x = nax_test::random_array<double, in>(rng, {n});
      auto w = nax_test::random_array<double, in, out>(rng, {n, m});
      auto tx = nax_test::random_array<double, in>(rng, {n});
      auto tw = nax_test::random_array<double, in, out>(rng, {n, m});
      auto [y, ty] = nax::jvp(evaluated, nax::tuple(x, w), nax::tuple(tx, tw));
      auto [y_lazy, ty_lazy] = nax::jvp(lazy, nax::tuple(x, w), nax::tuple(tx, tw));
      static_assert(std::is_same_v<decltype(ty), nax::Array<double, out>>);
      for (index_t j = 0; j < m; ++j) {
        CHECK(y(j) == doctest::Approx(y_lazy(j)).epsilon(1e-12));
        CHECK(ty(j) == doctest::Approx(ty_lazy(j)).epsilon(1e-12).scale(1));
      }
      check_against_vjp_and_differences(evaluated_value, rng, n, m, false);  // (stop_gradient)
    }
}

TEST_CASE("jvp through evaluations: an 8-layer MLP looping over a std::array or std::vector of structs, and an RNN over 16 steps") {
  nax_test::random_source rng(2006);
  constexpr int depth = 8;
  const index_t nb = 3, width = 4;
  auto x = nax_test::random_array<double, ex, in>(rng, {nb, width});
  auto random_layers = [&] {
    std::array<Layer, depth> ls;
    for (auto& l : ls) {
      l.w = nax_test::random_array<double, in, out>(rng, {width, width});
      for (double& v : l.w) v *= 0.8;
      l.bias = nax_test::random_array<double, out>(rng, {width});
    }
    return ls;
  };
  auto layers = random_layers(), directions = random_layers();
  auto mlp = [&](const auto& ls) {
    nax::Array<double, ex, in> h = x;
    for (const auto& l : ls) h = nax::rename<out, in>(nax::tanh(nax::dot<in>(h, l.w) + l.bias));  // h = f(h)
    return nax::mean<in>(nax::square(std::move(h)));  // one value per example: y[ex]
  };
  auto [y, ty] = nax::jvp(mlp, nax::tuple(layers), nax::tuple(directions));
  static_assert(std::is_same_v<decltype(ty), nax::Array<double, ex>>);
  // Central differences along the direction.
  const double h = 1e-6;
  auto moved = [&](double by) {
    auto ls = layers;
    for (int k = 0; k < depth; ++k) {
      ls[k].w = layers[k].w + directions[k].w * by;
      ls[k].bias = layers[k].bias + directions[k].bias * by;
    }
    return nax::Array<double, ex>(mlp(ls));
  };
  auto up = moved(h), down = moved(-h);
  double largest = 0;
  for (index_t e = 0; e < nb; ++e) {
    CHECK(ty(e) == doctest::Approx((up(e) - down(e)) / (2 * h)).epsilon(1e-6).scale(1));
    largest = std::max(largest, std::abs(ty(e)));
  }
  CHECK(largest > 1e-3);  // not a silent 0
  // The dot-product test against vjp: <J t, u> = <t, J^T u>.
  auto u = nax_test::random_array<double, ex>(rng, {nb});
  auto [y2, pullback] = nax::vjp(mlp)(layers);
  auto [g] = pullback(u);
  double rhs = 0;
  for (int k = 0; k < depth; ++k) rhs += inner(directions[k].w, g[k].w) + inner(directions[k].bias, g[k].bias);
  CHECK(inner(ty, u) == doctest::Approx(rhs).epsilon(1e-11));
  // The same layers in a std::vector (a run-time depth), its tangent a std::vector too.
  std::vector<Layer> vector_layers(layers.begin(), layers.end()), vector_directions(directions.begin(), directions.end());
  auto [yv, tyv] = nax::jvp(mlp, nax::tuple(vector_layers), nax::tuple(vector_directions));
  for (index_t e = 0; e < nb; ++e) CHECK(tyv(e) == doctest::Approx(ty(e)).epsilon(1e-13));
  vector_directions.pop_back();
  std::string mismatch;
  try {
    nax::jvp(mlp, nax::tuple(vector_layers), nax::tuple(vector_directions));
  } catch (const nax::shape_error& e) {
    mismatch = e.what();
  }
  CHECK(mismatch == "nax: jvp: a std::vector argument has 8 elements, its tangent 7");

  // An RNN over 16 steps, the recurrence a C++ for loop.
  const index_t steps = 16, nh = 3, ni = 2;
  auto xs = nax_test::random_array<double, two, ex, in>(rng, {steps, nb, ni});
  auto wh = nax_test::random_array<double, in, out>(rng, {nh, nh});
  auto wx = nax_test::random_array<double, in, out>(rng, {ni, nh});
  auto th = nax_test::random_array<double, in, out>(rng, {nh, nh});
  auto tx = nax_test::random_array<double, in, out>(rng, {ni, nh});
  for (double& v : wh) v *= 0.5;
  auto rnn = [&](const auto& recurrent, const auto& input) {
    nax::Array<double, ex, in> state({nb, nh});
    for (index_t t = 0; t < steps; ++t) {
      auto x_t = nax::sum<two>(nax::slice<two>(xs, t, t + 1));
      state = nax::rename<out, in>(nax::tanh(nax::dot<in>(state, recurrent) + nax::dot<in>(x_t, input)));
    }
    return nax::sum<ex>(std::move(state));  // y[in]
  };
  auto [r, tr] = nax::jvp(rnn, nax::tuple(wh, wx), nax::tuple(th, tx));
  nax::Array<double, in, out> whp = wh + th * h, whm = wh - th * h, wxp = wx + tx * h, wxm = wx - tx * h;
  nax::Array<double, in> rp = rnn(whp, wxp), rm = rnn(whm, wxm);
  for (index_t k = 0; k < nh; ++k) CHECK(tr(k) == doctest::Approx((rp(k) - rm(k)) / (2 * h)).epsilon(1e-6).scale(1));
  auto ur = nax_test::random_array<double, in>(rng, {nh});
  auto [r2, rnn_pullback] = nax::vjp(rnn)(wh, wx);
  auto [gh, gx] = rnn_pullback(ur);
  CHECK(inner(tr, ur) == doctest::Approx(inner(th, gh) + inner(tx, gx)).epsilon(1e-11));
}

TEST_CASE("jvp through evaluations inside vmap, and jacfwd of a function that evaluates, against jacrev") {
  nax_test::random_source rng(2007);
  auto xs = nax_test::random_array<double, ex, in>(rng, {4, 3});
  auto ts = nax_test::random_array<double, ex, in>(rng, {4, 3});
  nax::Array<double, ex> per = nax::vmap<ex>([](const auto& x, const auto& t) {
    return std::get<1>(nax::jvp([](const auto& a) {
      auto h = nax::eval(nax::tanh(a));  // an evaluated mapped value
      return nax::sum(h * h);
    }, nax::tuple(x), nax::tuple(t)));
  })(xs, ts);
  for (index_t e = 0; e < 4; ++e) {
    double d = 0;
    for (index_t i = 0; i < 3; ++i) {
      const double th = std::tanh(xs(e, i));
      d += 2 * th * (1 - th * th) * ts(e, i);
    }
    CHECK(per(e) == doctest::Approx(d).epsilon(1e-13));
  }
  auto w = nax_test::random_array<double, in, out>(rng, {3, 2});
  auto f = [&](const auto& v) {
    nax::Array<double, out> hidden = nax::tanh(nax::dot<in>(v, w));
    for (int k = 0; k < 3; ++k) hidden = nax::sin(hidden) + hidden;
    return hidden * nax::sum(nax::square(v));
  };
  auto x = nax_test::random_array<double, in>(rng, {3});
  auto jf = nax::jacfwd(f)(x);
  auto jr = nax::jacrev(f)(x);
  for (index_t j = 0; j < 2; ++j)
    for (index_t i = 0; i < 3; ++i) CHECK(jf(j, i) == doctest::Approx(jr(j, i)).epsilon(1e-12));
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
