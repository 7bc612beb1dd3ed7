// nax::custom_vjp and nax::checkpoint (autodiff/custom_vjp.hpp, checkpoint.hpp): a backward
// pass the user writes (a stable softplus, a straight-through estimator, two arguments, inside
// vmap(grad)), and blocks recomputed in the backward pass instead of kept, counted on the tape.
// Gradients against the lazy expression and central differences in double.
#include <array>
#include <string>

#include "../autodiff/finite_difference.hpp"
#include "../support/error_text.hpp"

namespace {
NAX_AXIS(ex);
NAX_AXIS(in);
NAX_AXIS(hid);
using nax::index_t;

int backward_calls = 0;

// softplus(x) = log(1 + exp(x)); its derivative sigmoid(x), from the residual x.
auto softplus = nax::custom_vjp(
    [](const auto& x) { return std::pair(nax::log1p(nax::exp(x)), nax::eval(x)); },
    [](const auto& x, const auto& ct) {
      ++backward_calls;
      return nax::sigmoid(x) * ct;
    });

// sign(x) forward, identity backward (a straight-through estimator: the true derivative is 0).
auto straight_through_sign = nax::custom_vjp(
    [](const auto& x) { return std::pair(nax::where(x > 0.0, 1.0, -1.0), 0); },
    [](int, const auto& ct) { return ct; });

// a * b with the cotangents swapped on purpose, to see that bwd's are the ones used.
auto product = nax::custom_vjp(
    [](const auto& a, const auto& b) { return std::pair(a * b, nax::tuple(nax::eval(a), nax::eval(b))); },
    [](const auto& res, const auto& ct) { return nax::tuple(ct * std::get<1>(res) * 2.0, ct * std::get<0>(res)); });

std::string error_of(auto&& call) { return nax_test::error_text(call); }
}  // namespace

TEST_CASE("custom_vjp: the user's backward pass is the one grad uses; outside grad it is not called") {
  nax_test::random_source rng(1901);
  for (index_t n : {index_t{0}, index_t{1}, index_t{5}}) {
    INFO("extent " << n);
    auto x = nax_test::random_array<double, in>(rng, {n});
    backward_calls = 0;
    nax::Array<double, in> y = softplus(x);  // outside grad: the value only
    CHECK(backward_calls == 0);
    for (index_t i = 0; i < n; ++i) CHECK(y(i) == doctest::Approx(std::log1p(std::exp(x(i)))).epsilon(1e-14));
    auto f = [](const auto& v) { return nax::sum(nax::square(softplus(nax::tanh(v)))); };
    auto lazy = [](const auto& v) { return nax::sum(nax::square(nax::log1p(nax::exp(nax::tanh(v))))); };
    auto [value, g] = nax::value_and_grad(f)(x);
    CHECK(backward_calls == (n > 0 ? 1 : 0));  // (an empty array depends on nothing: no entry)
    auto g_lazy = nax::grad(lazy)(x);
    CHECK(value.item() == doctest::Approx(lazy(x).item()).epsilon(1e-13));
    for (index_t i = 0; i < n; ++i) CHECK(g(i) == doctest::Approx(g_lazy(i)).epsilon(1e-12));
    CHECK(nax_ad_test::fd_error([&] { return lazy(x).item(); }, x, g) < 1e-6);
  }
}

TEST_CASE("custom_vjp: a straight-through estimator, two arguments, and inside vmap(grad(f))") {
  nax_test::random_source rng(1902);
  auto x = nax_test::random_array<double, in>(rng, {4});
  auto w = nax_test::random_array<double, in>(rng, {4});
  auto g = nax::grad([&](const auto& v) { return nax::sum(straight_through_sign(v) * w); })(x);
  for (index_t i = 0; i < 4; ++i) CHECK(g(i) == doctest::Approx(w(i)).epsilon(1e-15));  // not 0

  auto [ga, gb] = nax::grad<0, 1>([](const auto& a, const auto& b) { return nax::sum(product(nax::sin(a), b)); })(x, w);
  for (index_t i = 0; i < 4; ++i) {
    CHECK(ga(i) == doctest::Approx(std::cos(x(i)) * 2 * w(i)).epsilon(1e-14));  // bwd's (doubled) rule
    CHECK(gb(i) == doctest::Approx(std::sin(x(i))).epsilon(1e-14));
  }

  // Per-example gradients through a custom rule inside vmap(grad(f)).
  auto xs = nax_test::random_array<double, ex, in>(rng, {3, 4});
  nax::Array<double, ex, in> per = nax::vmap<ex>([&](const auto& xe) {
    return nax::grad([&](const auto& q) { return nax::sum(softplus(xe * q)); })(w);
  })(xs);
  for (index_t e = 0; e < 3; ++e)
    for (index_t i = 0; i < 4; ++i) {
      const double s = 1 / (1 + std::exp(-xs(e, i) * w(i)));
      CHECK(per(e, i) == doctest::Approx(s * xs(e, i)).epsilon(1e-13));
    }
  // A custom rule, and a checkpointed block, whose value does not vary over the examples while
  // each example's loss reads it: their backward passes run once per example.
  for (int variant = 0; variant < 2; ++variant) {
    INFO((variant == 0 ? "custom_vjp" : "checkpoint"));
    nax::Array<double, ex, in> shared = nax::vmap<ex>([&](const auto& xe) {
      return nax::grad([&](const auto& q) {
        auto s = variant == 0 ? softplus(q) : nax::checkpoint([](const auto& v) { return nax::log1p(nax::exp(v)); })(q);
        return nax::sum(nax::square(s * xe));
      })(w);
    })(xs);
    for (index_t e = 0; e < 3; ++e)
      for (index_t i = 0; i < 4; ++i) {
        const double sp = std::log1p(std::exp(w(i))), s = 1 / (1 + std::exp(-w(i)));
        CHECK(shared(e, i) == doctest::Approx(2 * sp * xs(e, i) * xs(e, i) * s).epsilon(1e-13));
      }
  }
}

TEST_CASE("custom_vjp: a cotangent of the wrong extent from bwd raises, naming the argument and the axis") {
  auto bad = nax::custom_vjp([](const auto& x) { return std::pair(x * 2.0, 0); },
                             [](int, const auto&) { return nax::zeros<double, in>(7); });
  nax::Array<double, in> x = nax::ones<double, in>(3);
  auto message = error_of([&] { nax::grad([&](const auto& v) { return nax::sum(bad(v)); })(x); });
  CHECK(message == "nax: custom_vjp: the cotangent of argument 1 has extent 7 along 'in', the argument has 3");
}

TEST_CASE("checkpoint: a block's intermediates are recomputed, not kept; the gradient is the same") {
  nax_test::random_source rng(1903);
  constexpr int depth = 8;
  auto x = nax_test::random_array<double, ex, in>(rng, {5, 6});
  std::array<nax::Array<double, in, hid>, depth> layers;
  for (auto& l : layers) l = nax_test::random_array<double, in, hid>(rng, {6, 6}) * 0.4;
  // Two layers, each evaluated: without checkpoint, both outputs are recorded entries.
  auto block = [](const auto& h, const auto& l0, const auto& l1) {
    nax::Array<double, ex, in> a = nax::rename<hid, in>(nax::tanh(nax::dot<in>(h, l0)));
    nax::Array<double, ex, in> b = nax::rename<hid, in>(nax::tanh(nax::dot<in>(a, l1)));
    return b;
  };
  auto current_tape = [] { return static_cast<nax::detail::ad::tape*>(nax::detail::active_tape); };
  std::size_t entries_plain = 0, entries_checkpointed = 0, adopted_plain = 0, adopted_checkpointed = 0;
  auto run = [&](bool remat) {
    return nax::grad([&](const auto& ls) {
      nax::Array<double, ex, in> h = x;
      for (int k = 0; k < depth; k += 2)
        h = remat ? nax::checkpoint(block)(h, ls[k], ls[k + 1]) : block(h, ls[k], ls[k + 1]);
      (remat ? entries_checkpointed : entries_plain) = current_tape()->entry_count();
      (remat ? adopted_checkpointed : adopted_plain) = current_tape()->adopted_count();
      return nax::sum(nax::square(h));
    })(layers);
  };
  auto plain = run(false);
  auto remat = run(true);
  CHECK(entries_plain == depth);             // every layer's output
  CHECK(entries_checkpointed == depth / 2);  // every block's output only
  CHECK(adopted_checkpointed < adopted_plain);  // the blocks' inner outputs were freed, not kept
  double largest = 0;
  for (int k = 0; k < depth; ++k)
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 6; ++j) {
        CHECK(remat[k](i, j) == doctest::Approx(plain[k](i, j)).epsilon(1e-12));
        largest = std::max(largest, std::abs(plain[k](i, j)));
      }
  CHECK(largest > 1e-3);
  auto loss = [&] {
    nax::Array<double, ex, in> h = x;
    for (int k = 0; k < depth; k += 2) h = block(h, layers[k], layers[k + 1]);
    return nax::sum(nax::square(h)).item();
  };
  CHECK(nax_ad_test::fd_error(loss, layers[3], remat[3]) < 1e-6);
  // Outside grad, checkpoint(f) is f, evaluated.
  nax::Array<double, ex, in> once = nax::checkpoint(block)(x, layers[0], layers[1]);
  nax::Array<double, ex, in> direct = block(x, layers[0], layers[1]);
  CHECK(nax::max(nax::abs(once - direct)).item() == 0.0);
}
