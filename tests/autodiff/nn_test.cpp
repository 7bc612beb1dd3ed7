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
