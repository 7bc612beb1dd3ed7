// Reverse-mode rules of the reductions (sum, mean, max, min, logsumexp, prod) against finite
// differences, random extents with size-1 axes; ties of max/min and zeros of prod by hand.
#include "finite_difference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
using nax::index_t;
}  // namespace

TEST_CASE("grad: reductions against finite differences: logsumexp, prod, mean") {
  nax_test::random_source rng(101);
  for (int trial = 0; trial < 4; ++trial) {
    index_t n = trial == 0 ? 1 : 1 + index_t(rng.value<int>(0, 5));
    index_t m = trial == 1 ? 1 : 1 + index_t(rng.value<int>(0, 5));
    INFO("extents " << n << "x" << m);
    auto x = nax_test::random_array<double, i, j>(rng, {n, m}, -2, 2);
    auto w = nax_test::random_array<double, i>(rng, {n});
    auto v = nax_test::random_array<double, j>(rng, {m});
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::logsumexp<j>(a) * w); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::logsumexp(a * 3.0); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::prod<j>(a) * w); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::mean(nax::exp(a)); }, x) < 1e-6);
  }
}

