// Per-element samplers against JAX 0.10.2 on CPU (x86-64, FMA): exact known answers, checksums of
// long outputs, an exhaustive check of the float32 transforms, then statistics and arg checks.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "nax/random/distributions.hpp"

using namespace nax::random;
using nax::index_t;

namespace {
struct Fnv {  // FNV-1a over 32/64-bit words, as the Python side computed it
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(std::uint64_t w) { h = (h ^ w) * 0x100000001b3ull; }
  void add(float v) { add(std::uint64_t{std::bit_cast<std::uint32_t>(v)}); }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
};
std::uint32_t bits_of(float v) { return std::bit_cast<std::uint32_t>(v); }
std::uint64_t bits_of(double v) { return std::bit_cast<std::uint64_t>(v); }
constexpr index_t kLong = index_t{1} << 20;
}  // namespace

TEST_CASE("uniform matches jax.random.uniform") {
  // uniform(key(0), (3,)) = [0.947667, 0.9785799, 0.33229148]
  CHECK(bits_of(uniform_element<float>(key(0), 0)) == 0x3f729a4eu);
  CHECK(bits_of(uniform_element<float>(key(0), 1)) == 0x3f7a8436u);
  CHECK(bits_of(uniform_element<float>(key(0), 2)) == 0x3eaa221cu);
  // uniform(split(key(0))[1]) of shape () is element 0: 0.0072938204
  CHECK(bits_of(uniform_element<float>(split(key(0))[1], 0)) == 0x3bef0100u);
  // uniform(key(7), (8,), float32, -3, 5.5): scale and shift fused into one FMA, as XLA CPU does
  const std::uint32_t k7[8] = {0x402eb475, 0x40a91886, 0xbeda0658, 0x3f460dc2,
                               0x404d9a30, 0x401739c7, 0x3f500ba9, 0x3efec414};
  for (int i = 0; i < 8; ++i) CHECK(bits_of(uniform_element<float>(key(7), i, -3.0f, 5.5f)) == k7[i]);
  // float64 (x64 mode)
  const std::uint64_t d0[4] = {0x3fdac80056666e90, 0x3fcbaf91c7e6ed88, 0x3feee3e9d53441c8,
                               0x3fe2624ef17c9d1a};
  const std::uint64_t d7[4] = {0x4010b31b5a8579d4, 0xc004e9752d03af6b, 0xbff166ef6dfa4f2a,
                               0xc0039f2ce6160159};
  for (int i = 0; i < 4; ++i) {
    CHECK(bits_of(uniform_element<double>(key(0), i)) == d0[i]);
    CHECK(bits_of(uniform_element<double>(key(7), i, -3.0, 5.5)) == d7[i]);
  }
  // The ends of the bit range: min exactly, and the largest value below max.
  CHECK(uniform_from_bits<float>(0u, -3.0f, 5.5f) == -3.0f);
  CHECK(bits_of(uniform_from_bits<float>(0xffffffffu, -3.0f, 5.5f)) == 0x40affffeu);
  CHECK(uniform_from_bits<float>(0xffffffffu, 0.0f, 1.0f) == 1.0f - 0x1p-23f);
  CHECK(bits_of(uniform_from_bits<double>(~0ull, -3.0, 5.5)) == 0x4015fffffffffffeull);

  Fnv a, b, c;
  for (index_t i = 0; i < kLong; ++i) {
    a.add(uniform_element<double>(key(2), i, -3.0, 5.5));
    b.add(uniform_element<float>(key(2), i, 0.25f, 4.0f));  // shape (1024, 1024), row-major
  }
  CHECK(a.h == 0xbcc9069d08fb8485ull);
  CHECK(b.h == 0xeca477d2dad4d8f7ull);
  for (std::uint32_t m = 0; m < (1u << 23); ++m) c.add(uniform_from_bits<float>(m << 9, -3.0f, 5.5f));
  CHECK(c.h == 0x8397e98f4d4fb8b3ull);  // every float32 mantissa, as JAX transforms it
}

TEST_CASE("normal matches jax.random.normal") {
  // normal(key(0), (8,)) = [1.6226422, 2.0252647, -0.43359444, -0.07861735, ...]
  const std::uint32_t n0[8] = {0x3fcfb2bd, 0x40019df0, 0xbede0017, 0xbda10222,
                               0x3e34512c, 0xbf78dad7, 0xbefd97cc, 0x3efd1f31};
  for (int i = 0; i < 8; ++i) CHECK(bits_of(normal_element<float>(key(0), i)) == n0[i]);
  // normal(key(1), (4, 4)) row-major
  const std::uint32_t n1[16] = {0xbe1e24c8, 0x3dad7b02, 0xbe0b3e78, 0xbe1ec1d3,
                                0x3fa22228, 0x3e17db52, 0x40090f53, 0x3f8057a1,
                                0xbe94a6e7, 0x3eb778f8, 0xbf353aba, 0xbe7b72d7,
                                0x3f62b589, 0x3f493f1a, 0x3f6390bb, 0x3f0ca096};
  for (int i = 0; i < 16; ++i) CHECK(bits_of(normal_element<float>(key(1), i)) == n1[i]);
  const std::uint64_t d0[6] = {0xbfca5909049a141d, 0xbfe91ccd1e1b7b4a, 0x3ffd0eb0e61cf797,
                               0x3fc80b45ca1069ab, 0x3fb4b3c1e85a437c, 0xbfd7d0a9c9f7177f};
  for (int i = 0; i < 6; ++i) CHECK(bits_of(normal_element<double>(key(0), i)) == d0[i]);
  // The tails: the smallest and largest uniform draws.
  CHECK(bits_of(normal_from_bits<float>(0u)) == 0xc0ad7080u);           // -5.419983
  CHECK(bits_of(normal_from_bits<float>(0xfffffe00u)) == 0x40a70b2au);  // 5.220113
  CHECK(bits_of(normal_from_bits<float>(0x80000000u)) == 0x33a06c98u);  // 7.470334e-08
  CHECK(bits_of(normal_from_bits<double>(0ull)) == 0xc02095b059d67c4cull);
  CHECK(bits_of(normal_from_bits<double>(~0ull)) == 0x402052484c516593ull);
  CHECK(bits_of(normal_from_bits<double>(1ull << 63)) == 0x3ca40d931ff62706ull);

  Fnv a, b, c;
  for (index_t i = 0; i < kLong; ++i) {
    a.add(normal_element<float>(key(1), i));
    b.add(normal_element<double>(key(0), i));
  }
  CHECK(a.h == 0xf6644a4aac345c42ull);
  CHECK(b.h == 0x425ba238f7c9dcd6ull);
  // Every float32 normal JAX can produce, in mantissa order: XLA CPU's log1p, FMAs and all.
  for (std::uint32_t m = 0; m < (1u << 23); ++m) c.add(normal_from_bits<float>(m << 9));
  CHECK(c.h == 0x0d2b267dd29b9c91ull);
}

TEST_CASE("erf_inv edge values") {
  CHECK(erf_inv(0.0f) == 0.0f);
  CHECK(erf_inv(1.0f) == INFINITY);
  CHECK(erf_inv(-1.0f) == -INFINITY);
  CHECK(erf_inv(1.0) == INFINITY);
  CHECK(erf_inv(-1.0) == -INFINITY);
  CHECK(std::isnan(erf_inv(1.5f)));
  CHECK(erf_inv(0.5f) == doctest::Approx(0.4769362762044699).epsilon(1e-6));
  CHECK(erf_inv(0.5) == doctest::Approx(0.4769362762044699).epsilon(1e-15));
  CHECK(erf_inv(-0.999) == doctest::Approx(-2.326753765513524).epsilon(1e-14));
}

TEST_CASE("bernoulli matches jax.random.bernoulli") {
  const int want[16] = {1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1};  // key(3), p=0.3
  for (int i = 0; i < 16; ++i) CHECK(bernoulli_element(key(3), i, 0.3f) == (want[i] == 1));
  Fnv a, b;
  for (index_t i = 0; i < kLong; ++i) {
    a.add(std::uint64_t{bernoulli_element(key(4), i, 0.3f)});
    b.add(std::uint64_t{bernoulli_element(key(4), i, 0.3)});
  }
  CHECK(a.h == 0x1b1dc933d0594220ull);
  CHECK(b.h == 0x5f60ed5aea9a29c8ull);
  CHECK_FALSE(bernoulli_element(key(3), 0, 0.0f));
  CHECK(bernoulli_element(key(3), 0, 1.0f));
}

TEST_CASE("randint matches jax.random.randint") {
  const int r0[10] = {9, 0, 2, 3, 1, 7, 2, 3, 3, 3};  // key(0), (10,), [0, 10)
  const RandintKeys k0 = randint_keys(key(0));
  for (int i = 0; i < 10; ++i) {
    CHECK(randint_element<std::int32_t>(k0, i, 0, 10) == r0[i]);
    CHECK(randint_element<std::int32_t>(key(0), i, 0, 10) == r0[i]);
  }
  // span > 2^16: JAX's multiplier (2^16 mod span)^2 wraps to 0 in uint32; so must ours.
  const int r5[6] = {972804, 455547, 523618, 333755, 370279, 266256};
  const int r5full[6] = {-1787507967, -1163020224, -1664956169,
                         -994140664,  -1625109188, -191201739};
  for (int i = 0; i < 6; ++i) {
    CHECK(randint_element<std::int32_t>(key(5), i, -5, 1000003) == r5[i]);
    CHECK(randint_element<std::int32_t>(key(5), i, INT32_MIN, INT32_MAX) == r5full[i]);
  }
  const std::int64_t r9[5] = {910831340022825, 280356707560807, 916708845694711,
                              50100566632111, 152518778392202};
  for (int i = 0; i < 5; ++i) {
    CHECK(randint_element<std::int64_t>(key(9), i, -1000000000000, 1000000000000000) == r9[i]);
  }
  CHECK(randint_element<std::int32_t>(key(9), 0, 7, 7) == 7);  // JAX: hi <= lo yields lo

  Fnv a, b, c;
  const RandintKeys k3 = randint_keys(key(3));
  for (index_t i = 0; i < kLong; ++i) {
    a.add(std::uint64_t{static_cast<std::uint32_t>(randint_element<std::int32_t>(k3, i, -7, 1000))});
    b.add(std::uint64_t{
        static_cast<std::uint32_t>(randint_element<std::int32_t>(k3, i, INT32_MIN, INT32_MAX))});
    c.add(static_cast<std::uint64_t>(
        randint_element<std::int64_t>(k3, i, -5, std::int64_t{300000000000000000})));
  }
  CHECK(a.h == 0xd9d0c300803e36f8ull);
  CHECK(b.h == 0x1ba119fb32e67863ull);
  CHECK(c.h == 0x3c415c518f7ed034ull);
}

// ---- statistics: fixed keys, 10^6 samples, bounds of 4 standard errors ----

namespace {
template <class F>
void check_moments(F draw, double mean, double var, double fourth_central) {
  constexpr index_t n = 1000000;
  double s = 0, s2 = 0;
  for (index_t i = 0; i < n; ++i) {
    const double x = draw(i);
    s += x;
    s2 += x * x;
  }
  const double m = s / n;
  const double v = s2 / n - m * m;
  CHECK(std::fabs(m - mean) < 4 * std::sqrt(var / n));
  CHECK(std::fabs(v - var) < 4 * std::sqrt((fourth_central - var * var) / n));
}
}  // namespace

TEST_CASE("uniform and normal have the right mean and variance") {
  check_moments([](index_t i) { return uniform_element<float>(key(11), i); }, 0.5, 1.0 / 12, 1.0 / 80);
  check_moments([](index_t i) { return uniform_element<double>(key(12), i); }, 0.5, 1.0 / 12, 1.0 / 80);
  // uniform on [-2, 6): mean 2, variance 64/12, fourth central moment 8^4/80
  check_moments([](index_t i) { return uniform_element<float>(key(13), i, -2.0f, 6.0f); }, 2.0,
                64.0 / 12, 4096.0 / 80);
  check_moments([](index_t i) { return normal_element<float>(key(14), i); }, 0.0, 1.0, 3.0);
  check_moments([](index_t i) { return normal_element<double>(key(15), i); }, 0.0, 1.0, 3.0);
  // bernoulli(0.3): variance pq = 0.21, fourth central moment pq(1 - 3pq)
  check_moments([](index_t i) { return bernoulli_element(key(16), i, 0.3f) ? 1.0 : 0.0; }, 0.3,
                0.21, 0.21 * (1 - 3 * 0.21));
}

TEST_CASE("uniform and randint pass a chi-square test over 100 bins") {
  constexpr index_t n = 1000000;
  constexpr int bins = 100;
  auto chi2 = [&](auto bin_of) {
    std::vector<double> count(bins, 0.0);
    for (index_t i = 0; i < n; ++i) count[static_cast<std::size_t>(bin_of(i))] += 1;
    double c = 0;
    for (double k : count) c += (k - double(n) / bins) * (k - double(n) / bins) / (double(n) / bins);
    return c;
  };
  // 99 degrees of freedom: mean 99, sd sqrt(198) ~ 14.1; accept within 4 sd.
  const double lo = 99 - 4 * std::sqrt(198.0), hi = 99 + 4 * std::sqrt(198.0);
  const double cu = chi2([](index_t i) { return static_cast<int>(uniform_element<float>(key(21), i) * 100); });
  CHECK(cu > lo);
  CHECK(cu < hi);
  const double cd = chi2([](index_t i) { return static_cast<int>(uniform_element<double>(key(22), i) * 100); });
  CHECK(cd > lo);
  CHECK(cd < hi);
  const RandintKeys k = randint_keys(key(23));
  const double cr = chi2([&](index_t i) { return randint_element<std::int32_t>(k, i, 0, 100); });
  CHECK(cr > lo);
  CHECK(cr < hi);
}

TEST_CASE("argument checks name the argument and its value") {
  CHECK_THROWS_AS(check_uniform_range(1.0f, 1.0f), nax::argument_error);
  CHECK_THROWS_WITH(check_uniform_range(2.0, 1.0), doctest::Contains("min = 2, max = 1"));
  CHECK_THROWS_AS(check_uniform_range(0.0f, NAN), nax::argument_error);
  CHECK_NOTHROW(check_uniform_range(-1.0f, 1.0f));
  CHECK_THROWS_WITH(check_probability(1.5f), doctest::Contains("p = 1.5"));
  CHECK_THROWS_WITH(check_probability(-0.25), doctest::Contains("p = -0.25"));
  CHECK_THROWS_AS(check_probability(NAN), nax::argument_error);
  CHECK_NOTHROW(check_probability(0.0f));
  CHECK_NOTHROW(check_probability(1.0));
  CHECK_THROWS_WITH(check_randint_range(5, 5), doctest::Contains("lo = 5, hi = 5"));
  CHECK_THROWS_WITH(check_randint_range(std::int64_t{9}, std::int64_t{-1}),
                    doctest::Contains("lo = 9, hi = -1"));
  CHECK_NOTHROW(check_randint_range(0, 1));
}
