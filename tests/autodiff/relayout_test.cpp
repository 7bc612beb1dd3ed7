// Reverse-mode rules of dot (the adjoint is a contraction) and of the relayouts (transpose,
// rename, slice, broadcast_to, split) against finite differences; pytree arguments; forward
// contractions computed once.

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

TEST_CASE("grad: relayouts against finite differences") {
  nax_test::random_source rng(202);
  for (int trial = 0; trial < 3; ++trial) {
    index_t n = 2 + index_t(rng.value<int>(0, 4)), m = trial == 0 ? 1 : 1 + index_t(rng.value<int>(0, 4));
    INFO("extents " << n << "x" << m);
    auto x = nax_test::random_array<double, i, j>(rng, {2 * n, m});
    auto wt = nax_test::random_array<double, j, i>(rng, {m, 2 * n});
    auto wr = nax_test::random_array<double, r, j>(rng, {2 * n, m});
    auto wb = nax_test::random_array<double, k, i, j>(rng, {3, 2 * n, m});
    auto ws = nax_test::random_array<double, i, j>(rng, {n, m});
    auto wsp = nax_test::random_array<double, o, q, j>(rng, {n, 2, m});
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::exp(nax::transpose<j, i>(a)) * wt); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::sin(nax::rename<i, r>(a)) * wr); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd(
              [&](const auto& a) { return nax::sum(nax::tanh(nax::broadcast_to<k, i, j>(a, {3, 2 * n, m}) * wb)); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::square(nax::slice<i>(a, 1, 2 * n, 2)) * ws); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::cos(nax::split<i, o, q>(a, 2)) * wsp); }, x) < 1e-6);
  }
}

