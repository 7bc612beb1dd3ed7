// permutation, choice and truncated_normal (random/shuffle.hpp, random/truncated_normal.hpp) as
// distributions and against their definitions: a permutation holds every index once (n from 0
// to past the two-round threshold) and permutes an array's elements along the named axis; choice
// without replacement draws distinct indices, with replacement indices in range, and with
// weights never draws a zero-weight index and follows the weights (a chi-square bound);
// truncated_normal stays inside (lower, upper) with the truncated mean; the bad arguments. (Bit
// compatibility with jax.random: the conformance family `random`.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <nax/nax.hpp>
#include <nax/random/random.hpp>

namespace nr = nax::random;
using nax::index_t;

namespace {
NAX_AXIS(sample);
NAX_AXIS(pick);
NAX_AXIS(row);
NAX_AXIS(cls);
}  // namespace

TEST_CASE("permutation: every index once, for any n; of an array, its elements moved along the axis") {
  for (index_t n : {0, 1, 2, 7, 1625, 1626, 4000}) {
    INFO("n " << n);
    nax::Array<index_t, sample> p = nr::permutation<sample>(nr::key(n), n);
    std::vector<index_t> seen(p.begin(), p.end());
    std::sort(seen.begin(), seen.end());
    std::vector<index_t> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), index_t(0));
    CHECK(seen == all);
    if (n > 20) CHECK(!std::equal(p.begin(), p.end(), all.begin()));  // shuffled (fails with probability 1/n!)
  }
  nax::Array<double, row, sample> x({3, 9});
  for (index_t r = 0; r < 3; ++r)
    for (index_t k = 0; k < 9; ++k) x(r, k) = double(r * 100 + k);
  nax::Array<double, sample, row> shuffled = nr::permutation<sample>(nr::key(3), x);
  nax::Array<index_t, sample> order = nr::permutation<sample>(nr::key(3), 9);
  for (index_t r = 0; r < 3; ++r)
    for (index_t k = 0; k < 9; ++k) CHECK(shuffled(k, r) == x(r, order(k)));
  CHECK_THROWS_AS((void)nr::permutation<sample>(nr::key(0), -1), nax::argument_error);
}

TEST_CASE("choice of indices: distinct without replacement, in range with it, and the errors") {
  for (int trial = 0; trial < 20; ++trial) {
    const index_t n = 1 + trial % 9, draws = trial % (n + 1);
    INFO("n " << n << " draws " << draws);
    nax::Array<std::int32_t, pick> distinct = nr::choice<pick>(nr::key(trial), n, draws, false);
    std::vector<std::int32_t> d(distinct.begin(), distinct.end());
    std::sort(d.begin(), d.end());
    CHECK(std::adjacent_find(d.begin(), d.end()) == d.end());
    nax::Array<std::int32_t, pick> independent = nr::choice<pick>(nr::key(trial), n, 3 * draws, true);
    for (auto i : independent) CHECK((i >= 0 && i < n));
    for (auto i : distinct) CHECK((i >= 0 && i < n));
    CHECK(distinct.extents()[0] == draws);
    CHECK(independent.extents()[0] == 3 * draws);
  }
  CHECK_THROWS_WITH_AS((void)nr::choice<pick>(nr::key(0), 4, 5, false),
                       doctest::Contains("cannot draw 5 without replacement from a population of 4"), nax::argument_error);
  CHECK_THROWS_WITH_AS((void)nr::choice<pick>(nr::key(0), 0, 1), doctest::Contains("nothing to draw from"),
                       nax::argument_error);
  CHECK_NOTHROW((void)nr::choice<pick>(nr::key(0), 0, 0));
  CHECK_THROWS_WITH_AS((void)nr::choice<pick>(nr::key(0), index_t(3'000'000'000), 5, false),
                       doctest::Contains("a population of 3000000000 does not fit the int32 indices"), nax::argument_error);
}

TEST_CASE("choice with weights: a zero weight is never drawn; frequencies follow the weights; of an array") {
  nax::Array<double, cls> p({5});
  const double w[] = {0.1, 0.0, 0.4, 0.2, 0.3};
  for (int i = 0; i < 5; ++i) p(i) = w[i];
  const index_t draws = 200000;
  nax::Array<std::int32_t, pick> many = nr::choice<pick>(nr::key(11), p, draws, true);
  std::vector<double> count(5);
  for (auto i : many) {
    REQUIRE((i >= 0 && i < 5));
    count[static_cast<std::size_t>(i)] += 1;
  }
  CHECK(count[1] == 0);
  double chi2 = 0;
  for (int i = 0; i < 5; ++i)
    if (w[i] > 0) chi2 += std::pow(count[i] - draws * w[i], 2) / (draws * w[i]);
  CHECK(chi2 < 20);  // 3 degrees of freedom: P(chi2 > 20) < 2e-4
  for (int trial = 0; trial < 10; ++trial) {
    nax::Array<std::int32_t, pick> d = nr::choice<pick>(nr::key(trial), p, 4, false);  // 4 of the 4 non-zero
    std::vector<std::int32_t> v(d.begin(), d.end());
    std::sort(v.begin(), v.end());
    CHECK(v == std::vector<std::int32_t>{0, 2, 3, 4});
  }
  nax::Array<float, row, cls> x({2, 5});
  for (index_t k = 0; k < 10; ++k) x.data()[k] = float(k);
  nax::Array<float, row, pick> drawn = nr::choice<pick, cls>(nr::key(5), x, 3, true, nax::cast<float>(p));
  nax::Array<std::int32_t, pick> at = nr::choice<pick>(nr::key(5), nax::cast<float>(p), 3, true);
  for (index_t r = 0; r < 2; ++r)
    for (index_t j = 0; j < 3; ++j) CHECK(drawn(r, j) == x(r, at(j)));
}

TEST_CASE("truncated_normal: inside (lower, upper), with the truncated normal's mean; bad bounds raise") {
  const index_t n = 1 << 18;
  nax::Array<double, sample> t = nr::truncated_normal<double, sample>(nr::key(2), -0.5, 2.0, {n});
  double mean = 0;
  for (double v : t) {
    REQUIRE((v > -0.5 && v < 2.0));
    mean += v;
  }
  mean /= double(n);
  // E[X | a < X < b] = (phi(a) - phi(b)) / (Phi(b) - Phi(a))
  auto phi = [](double v) { return std::exp(-v * v / 2) / std::sqrt(2 * M_PI); };
  auto Phi = [](double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); };
  const double want = (phi(-0.5) - phi(2.0)) / (Phi(2.0) - Phi(-0.5));
  CHECK(std::fabs(mean - want) < 5e-3);
  nax::Array<float, sample> below = nr::truncated_normal<sample>(nr::key(3), -std::numeric_limits<double>::infinity(), -1.0, {1000});
  for (float v : below) CHECK(v < -1.0f);
  CHECK_THROWS_WITH_AS((void)nr::truncated_normal<sample>(nr::key(0), 1.0, 1.0, {3}),
                       doctest::Contains("lower must be < upper"), nax::argument_error);
}
