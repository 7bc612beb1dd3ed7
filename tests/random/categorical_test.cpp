// gumbel and categorical (random/categorical.hpp) as distributions: the Gumbel sample's mean and
// variance (Euler's constant, pi^2 / 6), categorical's frequencies against softmax of the logits
// over many positions (a chi-square bound), a class with logit -inf never drawn, the draw
// independent of the logits' axis order, and per-member keys inside vmap. (Bit compatibility with
// jax.random: the conformance family `random`.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <nax/nax.hpp>
#include <nax/random/random.hpp>

namespace nr = nax::random;
using nax::index_t;

namespace {
NAX_AXIS(sample);
NAX_AXIS(cls);
NAX_AXIS(batch);
}  // namespace

TEST_CASE("gumbel: mean is Euler's constant, variance pi^2 / 6") {
  const index_t n = 1 << 20;
  nax::Array<double, sample> g = nr::gumbel<double, sample>(nr::key(7), {n});
  double mean = 0, sq = 0;
  for (double v : g) mean += v;
  mean /= double(n);
  for (double v : g) sq += (v - mean) * (v - mean);
  CHECK(mean == doctest::Approx(0.5772156649).epsilon(0.005));
  CHECK(sq / double(n) == doctest::Approx(M_PI * M_PI / 6).epsilon(0.01));
  nax::Array<float, sample> f = nr::gumbel<sample>(nr::key(8), {4096});
  for (float v : f) CHECK(std::isfinite(v));
}

TEST_CASE("categorical: frequencies follow softmax(logits); -inf is never drawn; axis order does not matter") {
  const index_t n = 1 << 16, k = 5;
  nax::Array<double, sample, cls> logits({n, k});
  const double row[k] = {0.0, 1.0, -1.0, 2.0, -std::numeric_limits<double>::infinity()};
  for (index_t s = 0; s < n; ++s)
    for (index_t c = 0; c < k; ++c) logits(s, c) = row[c];
  nax::Array<std::int32_t, sample> draws = nr::categorical<cls>(nr::key(3), logits);
  std::vector<double> counts(k, 0.0);
  for (auto d : draws) {
    REQUIRE(d >= 0);
    REQUIRE(d < k);
    counts[d] += 1;
  }
  CHECK(counts[4] == 0);
  double z = 0;
  for (index_t c = 0; c < 4; ++c) z += std::exp(row[c]);
  double chi2 = 0;
  for (index_t c = 0; c < 4; ++c) {
    const double expected = double(n) * std::exp(row[c]) / z;
    chi2 += (counts[c] - expected) * (counts[c] - expected) / expected;
  }
  CHECK(chi2 < 16.3);  // 3 degrees of freedom: p = 0.001
  // the same logits stored (cls, sample): the noise follows the expression's axis order, so the
  // draws differ, but the distribution does not
  nax::Array<double, cls, sample> flipped = nax::transpose<cls, sample>(logits);
  nax::Array<std::int32_t, sample> other = nr::categorical<cls>(nr::key(3), flipped);
  std::vector<double> counts2(k, 0.0);
  for (auto d : other) counts2[d] += 1;
  CHECK(counts2[4] == 0);
  for (index_t c = 0; c < 4; ++c) CHECK(std::abs(counts2[c] - counts[c]) < 0.02 * double(n));
}

TEST_CASE("categorical inside vmap: a key per member draws independently, an unmapped key draws the same") {
  const index_t nb = 6, k = 50;
  nax::Array<float, batch, cls> logits({nb, k});
  for (auto& v : logits) v = 0.f;
  auto keys = nax::eval(nr::split<batch>(nr::key(11), nb));
  nax::Array<std::int32_t, batch> own =
      nax::vmap<batch>([](const auto& kk, const auto& l) { return nr::categorical<cls>(kk, l); })(keys, logits);
  nax::Array<std::int32_t, batch> shared = nax::vmap<batch>([](const auto& l) { return nr::categorical<cls>(nr::key(5), l); })(logits);
  bool all_same_own = true, all_same_shared = true;
  for (index_t b = 1; b < nb; ++b) {
    all_same_own = all_same_own && own(b) == own(0);
    all_same_shared = all_same_shared && shared(b) == shared(0);
  }
  CHECK_FALSE(all_same_own);  // 6 independent draws from 50 equal classes: all equal has p = 50^-5
  CHECK(all_same_shared);
}
