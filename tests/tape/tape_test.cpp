// Programs of many expressions inside grad (the tape, autodiff/tape.hpp): evaluated
// intermediates carry derivatives, loops over layers and time steps, overwrites and scope,
// stop_gradient, and the errors for what would cut a derivative silently. Every gradient is
// checked against central differences in double, and against the same program written as
// one lazy expression where there is one.
#include <array>
#include <boost/hana/define_struct.hpp>
#include <string>

#include "../autodiff/finite_difference.hpp"
#include "../support/error_text.hpp"

namespace {
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);
NAX_AXIS(step);
using nax::index_t;

struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<double, in, hidden>, w), (nax::Array<double, hidden>, bias));
};

// Central differences of loss() over every element of x, against the gradient g (same layout).
template <class F, class X, class G>
double fd(F&& loss, X& x, const G& g) {
  return nax_ad_test::fd_error([&] { return double(loss()); }, x, g);
}

std::string error_of(auto&& call) { return nax_test::error_text<nax::argument_error>(call); }
}  // namespace

TEST_CASE("tape: an evaluated intermediate carries its derivative (the issue's example)") {
  nax_test::random_source rng(1601);
  auto x = nax_test::random_array<double, batch, in>(rng, {4, 3});
  auto w = nax_test::random_array<double, in, hidden>(rng, {3, 5});
  auto evaluated = [&](const auto& wv) {
    nax::Array<double, batch, hidden> h = nax::tanh(nax::dot<in>(x, wv));
    return nax::sum(nax::square(h));
  };
  auto lazy = [&](const auto& wv) { return nax::sum(nax::square(nax::tanh(nax::dot<in>(x, wv)))); };
  auto [value, g] = nax::value_and_grad(evaluated)(w);
  auto g_lazy = nax::grad(lazy)(w);
  CHECK(value.item() == doctest::Approx(lazy(w).item()).epsilon(1e-12));
  double worst = 0, largest = 0;
  for (index_t p = 0; p < 3; ++p)
    for (index_t q = 0; q < 5; ++q) {
      worst = std::max(worst, std::abs(g(p, q) - g_lazy(p, q)));
      largest = std::max(largest, std::abs(g_lazy(p, q)));
    }
  CHECK(largest > 0.1);  // not the silent 0 of before
  CHECK(worst < 1e-12);
  CHECK(fd([&] { return lazy(w).item(); }, w, g) < 1e-6);
}

TEST_CASE("tape: nax::eval, copies, an intermediate used twice, and a result that reads f's locals") {
  nax_test::random_source rng(1602);
  for (index_t n : {index_t{0}, index_t{1}, index_t{6}}) {
    INFO("extent " << n);
    auto x = nax_test::random_array<double, in>(rng, {n});
    auto f = [](const auto& v) {
      auto s = nax::eval(nax::sin(v));                 // a recorded nax::eval
      nax::Array<double, in> t = s;                    // a copy: recorded too
      nax::Array<double, in> mask = nax::ones<double, in>(t.extent<in>()) * 3.0;  // a constant local
      return nax::sum(t * s + s * mask + nax::exp(t)); // s used twice; the result reads locals
    };
    auto lazy = [](const auto& v) {
      return nax::sum(nax::sin(v) * nax::sin(v) + nax::sin(v) * 3.0 + nax::exp(nax::sin(v)));
    };
    auto g = nax::grad(f)(x);
    auto g_lazy = nax::grad(lazy)(x);
    for (index_t p = 0; p < n; ++p) CHECK(g(p) == doctest::Approx(g_lazy(p)).epsilon(1e-12));
    CHECK(fd([&] { return lazy(x).item(); }, x, g) < 1e-6);
  }
}

TEST_CASE("tape: an 8-layer MLP whose layers are a loop over a std::array of structs") {
  nax_test::random_source rng(1603);
  constexpr int depth = 8;
  const index_t nb = 3, width = 4;
  auto x = nax_test::random_array<double, batch, in>(rng, {nb, width});
  std::array<Layer, depth> layers;
  for (auto& l : layers) {
    l.w = nax_test::random_array<double, in, hidden>(rng, {width, width});
    for (double& v : l.w) v *= 0.8;
    l.bias = nax_test::random_array<double, hidden>(rng, {width});
  }
  auto loss = [&](const auto& ls) {
    nax::Array<double, batch, in> h = x;
    for (const auto& l : ls) h = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h, l.w) + l.bias));  // h = f(h)
    return nax::mean(nax::square(std::move(h)));  // the result owns h: loss is also called outside grad
  };
  auto [value, g] = nax::value_and_grad(loss)(layers);
  static_assert(std::is_same_v<decltype(g), std::array<Layer, depth>>);
  // The same network as one lazy expression, for the first two layers' gradients.
  auto two = [&](const auto& l0, const auto& l1) {
    auto h1 = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(x, l0.w) + l0.bias));
    return nax::sum(nax::square(nax::tanh(nax::dot<in>(h1, l1.w) + l1.bias)));
  };
  auto two_evaluated = [&](const auto& l0, const auto& l1) {
    nax::Array<double, batch, in> h1 = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(x, l0.w) + l0.bias));
    return nax::sum(nax::square(nax::tanh(nax::dot<in>(h1, l1.w) + l1.bias)));
  };
  auto [a0, a1] = nax::grad<0, 1>(two)(layers[0], layers[1]);
  auto [b0, b1] = nax::grad<0, 1>(two_evaluated)(layers[0], layers[1]);
  for (index_t p = 0; p < width; ++p) {
    CHECK(b0.bias(p) == doctest::Approx(a0.bias(p)).epsilon(1e-12));
    for (index_t q = 0; q < width; ++q) {
      CHECK(b0.w(p, q) == doctest::Approx(a0.w(p, q)).epsilon(1e-12));
      CHECK(b1.w(p, q) == doctest::Approx(a1.w(p, q)).epsilon(1e-12));
    }
  }
  CHECK(value.item() == doctest::Approx(loss(layers).item()).epsilon(1e-12));
  for (int l = 0; l < depth; ++l) {
    INFO("layer " << l);
    CHECK(fd([&] { return loss(layers).item(); }, layers[l].w, g[l].w) < 1e-6);
    CHECK(fd([&] { return loss(layers).item(); }, layers[l].bias, g[l].bias) < 1e-6);
  }
}

TEST_CASE("tape: an RNN over 16 time steps, the recurrence a C++ for loop") {
  nax_test::random_source rng(1604);
  const index_t steps = 16, nb = 2, nh = 3, ni = 2;
  auto xs = nax_test::random_array<double, step, batch, in>(rng, {steps, nb, ni});
  auto wh = nax_test::random_array<double, in, hidden>(rng, {nh, nh});
  auto wx = nax_test::random_array<double, in, hidden>(rng, {ni, nh});
  for (double& v : wh) v *= 0.5;
  auto loss = [&](const auto& recurrent, const auto& input) {
    nax::Array<double, batch, in> h({nb, nh});
    for (index_t t = 0; t < steps; ++t) {
      auto x_t = nax::sum<step>(nax::slice<step>(xs, t, t + 1));  // (batch, in) at step t
      h = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h, recurrent) + nax::dot<in>(x_t, input)));
    }
    return nax::sum(nax::square(std::move(h)));
  };
  auto [gh, gx] = nax::grad<0, 1>(loss)(wh, wx);
  CHECK(fd([&] { return loss(wh, wx).item(); }, wh, gh) < 1e-6);
  CHECK(fd([&] { return loss(wh, wx).item(); }, wx, gx) < 1e-6);
  double largest = 0;
  for (double v : gh) largest = std::max(largest, std::abs(v));
  CHECK(largest > 1e-3);
}

TEST_CASE("tape: overwrites in place and arrays that go out of scope inside f") {
  nax_test::random_source rng(1605);
  auto x = nax_test::random_array<double, batch>(rng, {5});
  auto f = [](const auto& v) {
    nax::Array<double, batch> h = v * 1.5;
    h = h * h;  // in place outside grad; inside, a fresh buffer (the record reads the old one)
    {
      nax::Array<double, batch> scoped = nax::exp(h * 0.1);
      h = h + scoped;  // scoped dies here: the record keeps it
    }
    nax::Array<double, batch> other = nax::cos(v);
    h = std::move(other);  // the old h is let go of; the record keeps it
    h = h * v;
    return nax::sum(h);
  };
  auto lazy = [](const auto& v) { return nax::sum(nax::cos(v) * v); };
  auto g = nax::grad(f)(x);
  auto g_lazy = nax::grad(lazy)(x);
  for (index_t p = 0; p < 5; ++p) CHECK(g(p) == doctest::Approx(g_lazy(p)).epsilon(1e-12));
  auto f2 = [](const auto& v) {
    nax::Array<double, batch> h = v * 1.5;
    h = h * h;
    {
      nax::Array<double, batch> scoped = nax::exp(h * 0.1);
      h = h + scoped;
    }
    return nax::sum(h * v);
  };
  auto g2 = nax::grad(f2)(x);
  auto lazy2 = [](const auto& v) { return nax::sum(((v * 1.5) * (v * 1.5) + nax::exp((v * 1.5) * (v * 1.5) * 0.1)) * v); };
  auto g2_lazy = nax::grad(lazy2)(x);
  for (index_t p = 0; p < 5; ++p) CHECK(g2(p) == doctest::Approx(g2_lazy(p)).epsilon(1e-12));
  CHECK(fd([&] { return lazy2(x).item(); }, x, g2) < 1e-6);
}

TEST_CASE("tape: an evaluated tanh, exp, sigmoid or sqrt reads its own output in the backward pass") {
  // The backward pass of h = F(z) is ct * F'(z) written in h (1 - h^2 for tanh, ...), not F's
  // partial evaluated again; other evaluations keep the expression's own rules.
  using leaf = nax::detail::Leaf<double, batch, hidden>;
  static_assert(nax::detail::ad::reads_own_output_v<nax::detail::Map<nax::detail::fn::tanh, leaf>, double>);
  static_assert(nax::detail::ad::reads_own_output_v<nax::detail::Map<nax::detail::fn::sqrt, leaf>, double>);
  static_assert(!nax::detail::ad::reads_own_output_v<nax::detail::Map<nax::detail::fn::tanh, leaf>, float>);
  static_assert(!nax::detail::ad::reads_own_output_v<nax::detail::Map<nax::detail::fn::sin, leaf>, double>);
  using renamed = decltype(nax::rename<hidden, in>(nax::tanh(std::declval<const nax::Array<double, batch, hidden>&>())));
  static_assert(nax::detail::ad::reads_own_output_v<renamed, double>);
  nax_test::random_source rng(1609);
  for (auto extents : {std::pair<index_t, index_t>{0, 3}, {1, 1}, {4, 0}, {3, 5}, {7, 2}}) {
    const index_t b = extents.first, n = extents.second;  // (clang 16 cannot capture a structured binding under -fopenmp)
    INFO("batch " << b << ", hidden " << n);
    auto x = nax_test::random_array<double, batch, in>(rng, {b, 3});
    auto w = nax_test::random_array<double, in, hidden>(rng, {3, n});
    // The destinations hold their axes in the other order, one is overwritten and one goes out
    // of scope before the backward pass reads it.
    auto evaluated = [&](const auto& wv) {
      nax::Array<double, hidden, batch> h = nax::tanh(nax::dot<in>(x, wv));
      nax::Array<double, batch, hidden> e = nax::exp(h * 0.5);
      nax::Array<double, hidden, batch> s = nax::sigmoid(e - h);
      {
        nax::Array<double, batch, hidden> r = nax::sqrt(s + 0.25);
        s = r * h;  // r dies, the old s is let go of: the record keeps both
      }
      h = nax::tanh(s + e);  // the old h is let go of as well
      return nax::sum(h * e);
    };
    auto lazy = [&](const auto& wv) {
      auto h = nax::tanh(nax::dot<in>(x, wv));
      auto e = nax::exp(h * 0.5);
      auto s = nax::sqrt(nax::sigmoid(e - h) + 0.25) * h;
      return nax::sum(nax::tanh(s + e) * e);
    };
    auto g = nax::grad(evaluated)(w);
    auto g_lazy = nax::grad(lazy)(w);
    double worst = 0;
    for (index_t p = 0; p < 3; ++p)
      for (index_t q = 0; q < n; ++q) worst = std::max(worst, std::abs(g(p, q) - g_lazy(p, q)));
    CHECK(worst < 1e-12);
    CHECK(fd([&] { return lazy(w).item(); }, w, g) < 1e-6);

    // A loop over square layers, each output renamed for the next (a relayout of tanh), and a
    // slice of an exp: the relayout is applied to the function's argument as well.
    auto v = nax_test::random_array<double, in, hidden>(rng, {3, 3});
    auto looped = [&](const auto& vv) {
      nax::Array<double, batch, in> h = x;
      for (int layer = 0; layer < 3; ++layer) h = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h, vv)));
      nax::Array<double, batch, in> e = nax::slice<in>(nax::exp(h * 0.5), 1, 3);
      return nax::sum(e * nax::slice<in>(h, 0, 2));
    };
    auto looped_lazy = [&](const auto& vv) {
      auto h1 = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(x, vv)));
      auto h2 = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h1, vv)));
      auto h3 = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h2, vv)));
      return nax::sum(nax::slice<in>(nax::exp(h3 * 0.5), 1, 3) * nax::slice<in>(h3, 0, 2));
    };
    auto gv = nax::grad(looped)(v);
    auto gv_lazy = nax::grad(looped_lazy)(v);
    worst = 0;
    for (index_t p = 0; p < 3; ++p)
      for (index_t q = 0; q < 3; ++q) worst = std::max(worst, std::abs(gv(p, q) - gv_lazy(p, q)));
    CHECK(worst < 1e-12);
    CHECK(fd([&] { return looped_lazy(v).item(); }, v, gv) < 1e-6);
  }
}

TEST_CASE("tape: an evaluated softmax reads its own output in the backward pass, per example too") {
  // attention = eval(softmax<key>(scores)): the backward pass is y * (ct - sum(ct * y)) from the
  // recorded y (autodiff/record.hpp, softmax_output_rule), JAX's rule. Against the same program
  // as one lazy expression (the quotient's rules), over either axis, in either storage order.
  using scores_t = decltype(nax::softmax<hidden>(std::declval<const nax::Array<double, batch, hidden>&>()));
  static_assert(nax::detail::ad::softmax_output_rule<scores_t, double>::value);
  static_assert(!nax::detail::ad::softmax_output_rule<scores_t, float>::value);
  using two_axes = decltype(nax::softmax<hidden, batch>(std::declval<const nax::Array<float, batch, hidden>&>()));
  static_assert(nax::detail::ad::softmax_output_rule<two_axes, float>::value);
  nax_test::random_source rng(1907);
  for (int trial = 0; trial < 8; ++trial) {
    // (softmax over an empty axis raises, as JAX: batch and hidden are never empty here.)
    const index_t b = rng.nonzero_extent(4), n = rng.nonzero_extent(5), k = rng.extent(3);
    INFO("batch " << b << ", hidden " << n << ", in " << k);
    auto x = nax_test::random_array<double, batch, in>(rng, {b, k});
    auto w = nax_test::random_array<double, in, hidden>(rng, {k, n});
    auto t = nax_test::random_array<double, hidden, batch>(rng, {n, b});  // weights of the loss, the other order
    auto program = [&](auto evaluate) {
      return [&, evaluate](const auto& wv) {
        auto scores = nax::tanh(nax::dot<in>(x, wv)) * 3.0;
        if constexpr (decltype(evaluate)::value) {
          nax::Array<double, hidden, batch> over_hidden = nax::softmax<hidden>(scores);
          nax::Array<double, batch, hidden> over_both = nax::softmax<batch, hidden>(scores * over_hidden);
          return nax::sum(nax::square(over_both - t) + over_hidden * t);
        } else {
          auto over_hidden = nax::softmax<hidden>(scores);
          return nax::sum(nax::square(nax::softmax<batch, hidden>(scores * over_hidden) - t) + over_hidden * t);
        }
      };
    };
    auto g = nax::grad(program(std::true_type{}))(w);
    auto g_lazy = nax::grad(program(std::false_type{}))(w);
    for (index_t p = 0; p < k; ++p)
      for (index_t q = 0; q < n; ++q) CHECK(g(p, q) == doctest::Approx(g_lazy(p, q)).epsilon(1e-12));
    CHECK(fd([&] { return program(std::false_type{})(w).item(); }, w, g) < 1e-6);
    // Per example (vmap(grad)): the softmax over hidden of one example's scores, batch mapped.
    auto per = [&](auto evaluate) {
      return nax::vmap<batch>([&](const auto& xe) {
        return nax::grad([&](const auto& wv) {
          auto scores = nax::dot<in>(xe, wv) * 2.0;
          if constexpr (decltype(evaluate)::value) {
            auto y = nax::eval(nax::softmax<hidden>(scores));
            return nax::sum(nax::square(y) * nax::take<batch>(t, 0));
          } else {
            return nax::sum(nax::square(nax::softmax<hidden>(scores)) * nax::take<batch>(t, 0));
          }
        })(w);
      })(x);
    };
    nax::Array<double, batch, in, hidden> got = per(std::true_type{}), want = per(std::false_type{});
    for (index_t e = 0; e < b; ++e)
      for (index_t p = 0; p < k; ++p)
        for (index_t q = 0; q < n; ++q) CHECK(got(e, p, q) == doctest::Approx(want(e, p, q)).epsilon(1e-12));
  }
}

TEST_CASE("tape: stop_gradient cuts a derivative, in an expression and in an evaluation") {
  nax_test::random_source rng(1606);
  auto x = nax_test::random_array<double, in>(rng, {4});
  auto g = nax::grad([](const auto& v) { return nax::sum(v * nax::stop_gradient(v)); })(x);
  auto ge = nax::grad([](const auto& v) {
    nax::Array<double, in> c = nax::stop_gradient(v * 2.0);  // records nothing: a constant
    nax::Array<double, in> h = v * 3.0;
    return nax::sum(h * c) + nax::stop_gradient(nax::sum(h)).item();  // a stopped value: a number
  })(x);
  for (index_t p = 0; p < 4; ++p) {
    CHECK(g(p) == doctest::Approx(x(p)).epsilon(1e-12));  // d/dx (x * const x) = x, not 2x
    CHECK(ge(p) == doctest::Approx(6.0 * x(p)).epsilon(1e-12));
  }
  nax::Array<double, in> y = nax::stop_gradient(x) + 1.0;  // outside grad: the identity
  for (index_t p = 0; p < 4; ++p) CHECK(y(p) == x(p) + 1.0);
}

TEST_CASE("tape: what would cut a derivative silently raises an error that names it") {
  nax_test::random_source rng(1607);
  auto x = nax_test::random_array<double, batch, in>(rng, {2, 3});
  auto expect = [](const std::string& text, const std::string& part) {
    INFO(text);
    CHECK(text.find(part) != std::string::npos);
  };
  // A raw pointer read of an evaluated intermediate, a copy through data(), element access.
  expect(error_of([&] {
           nax::grad([](const auto& v) {
             nax::Array<double, batch, in> h = v * 2.0;
             double first = h.data()[0];
             return nax::sum(v) * first;
           })(x);
         }),
         "f reads the output of recorded evaluation #1 of f, (batch=2, in=3) through data()");
  expect(error_of([&] {
           nax::grad([](const auto& v) {
             nax::Array<double, batch, in> h = nax::exp(v);
             std::vector<double> copy(std::as_const(h).begin(), std::as_const(h).end());
             return nax::sum(v) * copy[0];
           })(x);
         }),
         "through data()");
  expect(error_of([&] {
           nax::grad([](const auto& v) { return nax::sum(v) * v(0, 0); })(x);
         }),
         "f reads a differentiated argument (batch=2, in=3) through operator()");
  // item() of a value that depends on the argument: a plain number carries no derivative.
  expect(error_of([&] {
           nax::grad([](const auto& v) { return nax::sum(v) * nax::sum(v).item(); })(x);
         }),
         "through item()");
  // A writable pointer into a constant that a recorded evaluation read.
  expect(error_of([&] {
           nax::grad([](const auto& v) {
             nax::Array<double, in> c = nax::ones<double, in>(3);
             nax::Array<double, batch, in> h = v * c;
             c.data()[0] = 2.0;  // would change d h / d v
             return nax::sum(h);
           })(x);
         }),
         "writable pointer (data())");
  // Writing an expression of the argument into a view of a recorded array.
  expect(error_of([&] {
           nax::grad([](const auto& v) {
             nax::Array<double, batch, in> h = v * 2.0;
             auto hv = h.view();
             hv.assign(v * 3.0);
             return nax::sum(h);
           })(x);
         }),
         "writes into memory that the recorded evaluations read");
  // Writing a constant through a view into a constant that a recorded evaluation read.
  expect(error_of([&] {
           nax::grad([](const auto& v) {
             nax::Array<double, in> c = nax::ones<double, in>(3);
             nax::Array<double, batch, in> h = v * c;
             c.view().assign(nax::zeros<double, in>(3));  // would change d h / d v
             return nax::sum(h);
           })(x);
         }),
         "writes into memory that the recorded evaluations read");
  // grad(grad(f)) through an evaluation, and a grad nested in f reading the outer argument.
  nax::Array<double> s({}, {0.5});
  expect(error_of([&] {
           nax::grad(nax::grad([](const auto& v) {
             nax::Array<double> h = nax::sin(v);
             return h * h;
           }))(s);
         }),
         "second derivatives through evaluations are not supported yet");
  expect(error_of([&] {
           nax::grad([](const auto& v) {
             nax::Array<double, batch, in> h = v * 2.0;
             auto inner = nax::grad([](const auto& u) { return nax::sum(u * u); })(h);
             return nax::sum(inner);
           })(x);
         }),
         "compose them directly");
  // The error leaves nothing behind: a later grad of the same function works.
  auto ok = nax::grad([](const auto& v) {
    nax::Array<double, batch, in> h = v * 2.0;
    return nax::sum(h);
  })(x);
  CHECK(ok(1, 2) == 2.0);
  // Outside grad, raw access is as always.
  CHECK(x.data()[0] == x(0, 0));
}

TEST_CASE("tape: a function that evaluates only constants records nothing and matches the lazy one") {
  nax_test::random_source rng(1608);
  auto x = nax_test::random_array<double, batch>(rng, {7});
  auto c = nax_test::random_array<double, batch>(rng, {7});
  auto f = [&](const auto& v) {
    nax::Array<double, batch> k = nax::exp(c);  // reads no argument: not recorded
    return nax::sum(v * k);
  };
  auto g = nax::grad(f)(x);
  for (index_t p = 0; p < 7; ++p) CHECK(g(p) == doctest::Approx(std::exp(c(p))).epsilon(1e-12));
}

namespace {
NAX_AXIS(dev);
}

TEST_CASE("tape: grad of a function that calls xmap on a value of the argument raises (the mesh is not recorded)") {
  nax::Mesh<dev> mesh(nax::host::devices(2), {2});
  auto x = nax::ones<double, batch>(4);
  auto twice = nax::xmap<nax::bind<batch, dev>>([](const auto& v) { return v * 2.0; }, mesh);
  const std::string text = error_of([&] {
    nax::grad([&](const auto& v) {
      nax::Array<double, batch> h = v * 1.0;
      auto r = twice(h);
      (void)r;
      return nax::sum(v);
    })(x);
  });
  INFO(text);
  CHECK(text.find("calls xmap (or pmap) with an argument that depends on a differentiated argument") != std::string::npos);
  auto r = twice(x);  // outside grad: as always
  CHECK(r(3) == 2.0);
}

TEST_CASE("tape: a run-time number of layers, a std::vector of structs: grad, tree_map and tree_reduce") {
  nax_test::random_source rng(1609);
  const index_t nb = 3, width = 4;
  auto x = nax_test::random_array<double, batch, in>(rng, {nb, width});
  for (int depth : {0, 1, 5}) {
    INFO("depth " << depth);
    std::vector<Layer> layers(static_cast<std::size_t>(depth));
    for (auto& l : layers) {
      l.w = nax_test::random_array<double, in, hidden>(rng, {width, width});
      for (double& v : l.w) v *= 0.6;
      l.bias = nax_test::random_array<double, hidden>(rng, {width});
    }
    auto loss = [&](const std::vector<Layer>& ls, double scale) {
      nax::Array<double, batch, in> h = x;
      for (const auto& l : ls) h = nax::rename<hidden, in>(nax::tanh(nax::dot<in>(h, l.w) + l.bias));
      return nax::sum(nax::square(std::move(h))) * scale;
    };
    auto [value, g] = nax::value_and_grad(loss)(layers, 0.5);
    static_assert(std::is_same_v<decltype(g), std::vector<Layer>>);
    REQUIRE(g.size() == layers.size());
    CHECK(value.item() == doctest::Approx(loss(layers, 0.5).item()).epsilon(1e-12));
    for (std::size_t l = 0; l < layers.size(); ++l) {
      CHECK(fd([&] { return loss(layers, 0.5).item(); }, layers[l].w, g[l].w) < 1e-6);
      CHECK(fd([&] { return loss(layers, 0.5).item(); }, layers[l].bias, g[l].bias) < 1e-6);
    }
    // The SGD step over the std::vector, and the squared norm of the gradient (tree_reduce).
    std::vector<Layer> next = nax::tree_map([](auto p, auto d) { return p - 0.1 * d; }, layers, g);
    REQUIRE(next.size() == layers.size());
    double norm = nax::tree_reduce([](double acc, auto leaf) { return acc + nax::sum(nax::square(leaf)).item(); }, g, 0.0);
    double by_hand = 0;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      for (index_t p = 0; p < width; ++p) {
        CHECK(next[l].bias(p) == layers[l].bias(p) - 0.1 * g[l].bias(p));
        by_hand += g[l].bias(p) * g[l].bias(p);
        for (index_t q = 0; q < width; ++q) {
          CHECK(next[l].w(p, q) == layers[l].w(p, q) - 0.1 * g[l].w(p, q));
          by_hand += g[l].w(p, q) * g[l].w(p, q);
        }
      }
    }
    CHECK(norm == doctest::Approx(by_hand).epsilon(1e-12));
  }
  // A std::vector of plain arrays, read lazily (no evaluation inside f).
  std::vector<nax::Array<double, in>> vs{nax_test::random_array<double, in>(rng, {3}), nax_test::random_array<double, in>(rng, {3})};
  auto gv = nax::grad([](const auto& v) { return nax::sum(v[0] * v[1] + nax::exp(v[1])); })(vs);
  for (index_t p = 0; p < 3; ++p) {
    CHECK(gv[0](p) == doctest::Approx(vs[1](p)).epsilon(1e-12));
    CHECK(gv[1](p) == doctest::Approx(vs[0](p) + std::exp(vs[1](p))).epsilon(1e-12));
  }
  std::vector<nax::Array<double, in>> shorter(1);
  CHECK_THROWS_AS(nax::tree_map([](auto a, auto b) { return a + b; }, vs, shorter), nax::shape_error);
}
