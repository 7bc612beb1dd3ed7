// Reverse-mode rules of the reductions (sum, mean, max, min, logsumexp, prod) against finite
// differences, random extents with size-1 axes; ties of max/min and zeros of prod by hand.
#include "finite_difference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
using nax::index_t;
}  // namespace

TEST_CASE("grad: reductions against finite differences: sum, mean, max, min") {
  nax_test::random_source rng(101);
  for (int trial = 0; trial < 4; ++trial) {
    index_t n = trial == 0 ? 1 : 1 + index_t(rng.value<int>(0, 5));
    index_t m = trial == 1 ? 1 : 1 + index_t(rng.value<int>(0, 5));
    INFO("extents " << n << "x" << m);
    auto x = nax_test::random_array<double, i, j>(rng, {n, m}, -2, 2);
    auto w = nax_test::random_array<double, i>(rng, {n});
    auto v = nax_test::random_array<double, j>(rng, {m});
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::sum<j>(nax::square(a)) * w); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::mean<i>(a * a * a) * v); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::max<j>(a) * w); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::sum(nax::min<i>(a) * v); }, x) < 1e-6);
    CHECK(nax_ad_test::check_fd([&](const auto& a) { return nax::max(a) + nax::min(a) * 2.0; }, x) < 1e-6);
  }
}


TEST_CASE("grad: max and min split the cotangent between ties, as JAX") {
  nax::Array<double, i> x({4}, {1.0, 3.0, 3.0, 3.0});
  auto g = nax::grad([](const auto& a) { return nax::max(a); })(x);
  CHECK(g(0) == 0.0);
  CHECK(g(1) == doctest::Approx(1.0 / 3));
  CHECK(g(3) == doctest::Approx(1.0 / 3));
  auto h = nax::grad([](const auto& a) { return nax::min(a) * 2.0; })(x);
  CHECK(h(0) == 2.0);
  CHECK(h(1) == 0.0);
}

TEST_CASE("grad: prod with no zero, one zero and two zeros") {
  nax::Array<double, i> x({3}, {2.0, 3.0, 4.0});
  auto g = nax::grad([](const auto& a) { return nax::prod(a); })(x);
  CHECK(g(0) == 12.0);
  CHECK(g(1) == 8.0);
  CHECK(g(2) == 6.0);
  nax::Array<double, i> y({3}, {2.0, 0.0, 4.0});
  auto h = nax::grad([](const auto& a) { return nax::prod(a); })(y);
  CHECK(h(0) == 0.0);
  CHECK(h(1) == 8.0);
  CHECK(h(2) == 0.0);
  nax::Array<double, i> z({3}, {0.0, 0.0, 4.0});
  auto k = nax::grad([](const auto& a) { return nax::prod(a); })(z);
  CHECK(k(0) == 0.0);
  CHECK(k(1) == 0.0);
  CHECK(k(2) == 0.0);
}

TEST_CASE("grad(grad): prod's Hessian times u, exact on lines with no, one, two and three zeros") {
  NAX_AXIS(row);
  NAX_AXIS(col);
  nax_test::random_source rng(3130);
  for (int trial = 0; trial < 12; ++trial) {
    const index_t nr = rng.nonzero_extent(4), nc = rng.nonzero_extent(6);
    auto x = nax_test::random_array<double, row, col>(rng, {nr, nc}, -1.5, 1.5);
    for (index_t r = 0; r < nr; ++r)  // row r gets min(r, nc) zeros at random places
      for (index_t k = 0; k < std::min(r, nc); ++k) x(r, rng.integer(0, nc - 1)) = 0.0;
    auto w = nax_test::random_array<double, row>(rng, {nr}, -1.0, 1.0);
    auto u = nax_test::random_array<double, row, col>(rng, {nr, nc}, -1.0, 1.0);
    auto f = [&](const auto& z) { return nax::sum(w * nax::prod<col>(z)); };
    // d/dx of d/ds f(x + s u) at s = 0
    auto along_u = [&](const auto& step, const auto& z) { return f(z + step * u); };
    auto hu = std::get<1>(nax::grad<0, 1>(nax::grad<0>(along_u))(nax::full<double>(0.0), x));
    INFO("extents " << nr << " x " << nc);
    // (H u)_j = w * sum over m != j of u_m * (the product of the x_k, k != j, m)
    nax_test::check_all(hu, [&](const nax_test::index_map& at) {
      const index_t r = at.at("row"), j = at.at("col");
      double total = 0;
      for (index_t m = 0; m < nc; ++m) {
        if (m == j) continue;
        double product = 1;
        for (index_t k = 0; k < nc; ++k)
          if (k != j && k != m) product *= x(r, k);
        total += u(r, m) * product;
      }
      return w(r) * total;
    }, 1e-12, 1e-12);
  }
}
