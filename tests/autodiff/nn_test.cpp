// Gradients of expr/nn.hpp's compositions (softmax, log_softmax, standardize, var, std, the
// cross-entropies) against central finite differences, on random extents (a size-1 axis
// included) and weights that make every output's cotangent different.
#include "finite_difference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
using nax::index_t;

// f(a, p) with p random in [0, 1] of a's extents (labels for the cross-entropies). The first
// trial has a size-1 axis j unless min_m says otherwise (std's derivative at variance 0 is NaN).
template <class F>
void check_nn_grad(const char* name, F f, std::uint64_t seed, index_t min_m = 1) {
  nax_test::random_source rng(seed);
  for (int trial = 0; trial < 3; ++trial) {
    const index_t n = 1 + index_t(rng.template value<int>(0, 3));
    const index_t m = trial == 0 ? min_m : 2 + index_t(rng.template value<int>(0, 3));
    auto x = nax_test::random_array<double, i, j>(rng, {n, m}, -2.0, 2.0);
    auto p = nax_test::random_array<double, j, i>(rng, {m, n}, 0.0, 1.0);
    auto w = nax_test::random_array<double, j, i>(rng, {m, n});
    auto loss = [&](const auto& a) { return nax::sum(f(a, p) * w); };
    auto g = nax::grad(loss)(x);
    INFO(name << " extents " << n << "x" << m);
    CHECK(nax_ad_test::fd_error([&] { return loss(x).item(); }, x, g) < 1e-6);
  }
}
}  // namespace

TEST_CASE("grad of softmax, log_softmax and standardize over an axis against finite differences") {
  check_nn_grad("softmax", [](const auto& a, const auto&) { return nax::softmax<j>(a); }, 61);
  check_nn_grad("softmax over i", [](const auto& a, const auto&) { return nax::softmax<i>(a); }, 62);
  check_nn_grad("log_softmax", [](const auto& a, const auto&) { return nax::log_softmax<j>(a); }, 63);
  check_nn_grad("softmax over both", [](const auto& a, const auto&) { return nax::softmax<i, j>(a); }, 64);
  check_nn_grad("standardize", [](const auto& a, const auto&) { return nax::standardize<j>(a, 0.1); }, 65);
}

TEST_CASE("grad of var, std and the cross-entropies against finite differences") {
  check_nn_grad("var", [](const auto& a, const auto&) { return nax::var<j>(a); }, 71);
  check_nn_grad("var ddof 1", [](const auto& a, const auto&) { return nax::var<j>(a, 1); }, 72, 2);
  check_nn_grad("std", [](const auto& a, const auto&) { return nax::std<j>(a + 3.0 * nax::square(a)); }, 73, 2);
  check_nn_grad("softmax_cross_entropy", [](const auto& a, const auto& p) { return nax::softmax_cross_entropy<j>(a, p); }, 74);
  check_nn_grad("sigmoid_binary_cross_entropy",
                [](const auto& a, const auto& p) { return nax::sigmoid_binary_cross_entropy(a, p); }, 75);
}

namespace {
NAX_AXIS(k);
NAX_AXIS(batch);
}  // namespace

// rules.hpp's with_shared_cotangent: a costly cotangent that two rules read (a dense tanh
// layer's ct * (1 - tanh^2) going to x, w and b; the cross-entropy's going to both operands of
// a dot) is evaluated once. Every argument's gradient against differences, on random extents
// (0 and 1 included); per-example gradients (vmap of grad, where the cotangent has a mapped
// axis and stays lazy) summed over the batch give the same.
TEST_CASE("grad through a cotangent read by two rules (evaluated once) against finite differences") {
  nax_test::random_source rng(81);
  for (int trial = 0; trial < 4; ++trial) {
    const index_t nb = trial == 0 ? 0 : 1 + index_t(rng.value<int>(0, 2)), ni = trial == 1 ? 1 : 1 + index_t(rng.value<int>(0, 3));
    const index_t nj = 1 + index_t(rng.value<int>(0, 3)), nk = 2 + index_t(rng.value<int>(0, 2));
    INFO("trial " << trial << ": batch " << nb << ", i " << ni << ", j " << nj << ", k " << nk);
    auto x = nax_test::random_array<double, batch, i>(rng, {nb, ni});
    auto w = nax_test::random_array<double, i, j>(rng, {ni, nj});
    auto b = nax_test::random_array<double, j>(rng, {nj});
    auto v = nax_test::random_array<double, j, k>(rng, {nj, nk});
    nax::Array<std::int32_t, batch> labels({nb});
    for (index_t q = 0; q < nb; ++q) labels.data()[q] = std::int32_t(rng.value<int>(0, int(nk) - 1));
    auto one = [&](const auto& xe, const auto& le, const auto& w, const auto& b, const auto& v) {
      auto h = nax::tanh(nax::dot<i>(xe, w) + b);
      return nax::softmax_cross_entropy_with_integer_labels<k>(nax::dot<j>(h, v), le) + nax::sum<j>(nax::square(h));
    };
    auto plain = [&](const auto& x, const auto& w, const auto& b, const auto& v) { return nax::sum(one(x, labels, w, b, v)); };
    auto [gx, gw, gb, gv] = nax::grad<0, 1, 2, 3>(plain)(x, w, b, v);
    auto value = [&] { return plain(x, w, b, v).item(); };
    CHECK(nax_ad_test::fd_error(value, x, gx) < 1e-6);
    CHECK(nax_ad_test::fd_error(value, w, gw) < 1e-6);
    CHECK(nax_ad_test::fd_error(value, b, gb) < 1e-6);
    CHECK(nax_ad_test::fd_error(value, v, gv) < 1e-6);
    // Per example (vmap of grad: the cotangents have the batch axis mapped), summed over the
    // batch: the same gradients.
    auto per_example = nax::vmap<batch>([&](const auto& xe, const auto& le) {
      return nax::grad<0, 1, 2>([&](const auto& w, const auto& b, const auto& v) { return nax::sum(one(xe, le, w, b, v)); })(w, b, v);
    })(x, labels);
    auto close = [](const auto& a, const auto& e) {
      double worst = 0;
      for (index_t q = 0; q < e.size(); ++q) worst = std::max(worst, std::abs(a.data()[q] - e.data()[q]));
      return worst;
    };
    CHECK(close(nax::eval(nax::sum<batch>(std::get<0>(per_example))), gw) < 1e-12);
    CHECK(close(nax::eval(nax::sum<batch>(std::get<1>(per_example))), gb) < 1e-12);
    CHECK(close(nax::eval(nax::sum<batch>(std::get<2>(per_example))), gv) < 1e-12);
  }
}
