// Threefry-2x32 and the key-level operations against Random123's known answers and JAX 0.10.2
// (jax.random with the default threefry2x32, partitionable mode) run on CPU.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "nax/random/bits.hpp"
#include "nax/random/key.hpp"
#include "nax/random/threefry.hpp"

using namespace nax::random;

namespace {
// FNV-1a over 32- or 64-bit words: a checksum of a long JAX output, computed the same way in
// Python when the known answer was made.
struct Fnv {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(std::uint64_t w) { h = (h ^ w) * 0x100000001b3ull; }
};
}  // namespace

TEST_CASE("threefry2x32 matches Random123's known answers") {
  Words2 a = threefry2x32(0u, 0u, 0u, 0u);
  CHECK(a.w0 == 0x6b200159u);
  CHECK(a.w1 == 0x99ba4efeu);
  Words2 b = threefry2x32(~0u, ~0u, ~0u, ~0u);
  CHECK(b.w0 == 0x1cb996fcu);
  CHECK(b.w1 == 0xbb002be7u);
  Words2 c = threefry2x32(0x13198a2eu, 0x03707344u, 0x243f6a88u, 0x85a308d3u);
  CHECK(c.w0 == 0xc4923a9cu);
  CHECK(c.w1 == 0x483df7a0u);
}

TEST_CASE("threefry2x32, key and split are usable in constant expressions") {
  static_assert(threefry2x32(0u, 0u, 0u, 0u).w0 == 0x6b200159u);
  static_assert(split_one(key(0), 1) == Key{928981903u, 3453687069u});
  static_assert(random_bits32(key(0), 0) == 0xf29a4fa7u);
  CHECK(true);
}

TEST_CASE("key(seed) splits a 64-bit seed into high and low words like jax.random.key (x64)") {
  CHECK(key(0) == Key{0u, 0u});
  CHECK(key(1) == Key{0u, 1u});
  CHECK(key(42) == Key{0u, 42u});
  CHECK(key(4294967301) == Key{1u, 5u});  // 2^32 + 5
  CHECK(key(-1) == Key{0xffffffffu, 0xffffffffu});
  CHECK(key(INT64_MIN) == Key{0x80000000u, 0u});
}

TEST_CASE("key_x32(seed) matches jax.random.key in JAX's default 32-bit mode") {
  CHECK(key_x32(0) == Key{0u, 0u});
  CHECK(key_x32(-1) == Key{0u, 0xffffffffu});
  CHECK(key_x32(-2) == Key{0u, 0xfffffffeu});
  CHECK(key_x32(4294967301) == Key{0u, 5u});
  CHECK(key_x32(INT64_MIN) == Key{0u, 0u});
  CHECK(key_x32(123456) == key(123456));
}

TEST_CASE("split matches jax.random.split") {
  std::vector<Key> two = split(key(0), 2);
  REQUIRE(two.size() == 2);
  CHECK(two[0] == Key{1797259609u, 2579123966u});
  CHECK(two[1] == Key{928981903u, 3453687069u});
  CHECK(split(key(0)).size() == 2);  // n defaults to 2
  CHECK(split(key(0), 0).empty());

  // split(key(42), (2, 3)): a split shape enumerates keys by row-major linear index.
  const std::uint32_t want[12] = {0x6d3e048f, 0x1022172d, 0x03d7b32d, 0xadd083f4,
                                  0x92fb20ea, 0x0f38d913, 0xbad56946, 0x354ba891,
                                  0xb013aee3, 0xc34eddf6, 0xa4d91a96, 0x3122544e};
  for (int i = 0; i < 6; ++i) {
    CHECK(split_one(key(42), i) == Key{want[2 * i], want[2 * i + 1]});
  }

  // jax.random.key_data(jax.random.split(key(6), 1000)), flattened, checksummed.
  Fnv f;
  for (const Key& k : split(key(6), 1000)) {
    f.add(k.k0);
    f.add(k.k1);
  }
  CHECK(f.h == 0x30446aaa85c7589full);
}

TEST_CASE("split rejects a negative count, naming it") {
  CHECK_THROWS_AS(split(key(0), -1), nax::argument_error);
  CHECK_THROWS_WITH(check_split_count(-3), doctest::Contains("n = -3"));
  CHECK_NOTHROW(check_split_count(0));
}

TEST_CASE("a linear index past 2^32 carries into the counter's high word") {
  const nax::index_t i = (nax::index_t{1} << 32) + 3;
  const Words2 w = threefry2x32(7u, 9u, 1u, 3u);
  CHECK(split_one(Key{7u, 9u}, i) == Key{w.w0, w.w1});
  CHECK(random_bits32(Key{7u, 9u}, i) == (w.w0 ^ w.w1));
}

TEST_CASE("fold_in matches jax.random.fold_in") {
  CHECK(fold_in(key(0), 7u) == Key{0xa1ef7a4du, 0x116eb6b3u});
  CHECK(fold_in(key(1), 0xffffffffu) == Key{0x45ecd01cu, 0xeffc9cbdu});
  // Partitionable mode: fold_in(k, d) is split(k, n)[d].
  CHECK(fold_in(key(0), 1u) == split_one(key(0), 1));
}

TEST_CASE("random bits match jax.random.bits") {
  // bits(key(0), (5,), uint32) and, row-major, (2, 3).
  const std::uint32_t b32[6] = {0xf29a4fa7, 0xfa843692, 0x55110e28,
                                0x77faa835, 0x91e43bb7, 0x2a5e6943};
  for (int i = 0; i < 6; ++i) CHECK(random_bits32(key(0), i) == b32[i]);
  // bits(key(0), (3,), uint64): the two cipher words, first high.
  CHECK(random_bits64(key(0), 0) == 0x6b20015999ba4efeull);
  CHECK(random_bits64(key(0), 1) == 0x375f238fcddb151dull);
  CHECK(random_bits64(key(0), 2) == 0xf71f4ea9a20e4081ull);
  CHECK(random_bits<float>(key(0), 1) == b32[1]);
  CHECK(random_bits<double>(key(0), 1) == 0x375f238fcddb151dull);

  Fnv f32, f64;
  for (nax::index_t i = 0; i < (1 << 20); ++i) {
    f32.add(random_bits32(key(5), i));
    f64.add(random_bits64(key(5), i));
  }
  CHECK(f32.h == 0xf5fd71a02d610215ull);
  CHECK(f64.h == 0x96671a104868830bull);
}
