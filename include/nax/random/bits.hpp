// Random bits per element, counter-based: element i of a sample depends only on (key, i), so
// any element can be computed alone, in any order, on any device. Mirrors
// `_threefry_random_bits_partitionable` in jax/_src/random/threefry2x32.py.
#pragma once
#include <cstdint>

#include "nax/core/config.hpp"
#include "nax/random/key.hpp"

namespace nax::random {

// The cipher words of counter i: the row-major element index as a uint64 split into (high,
// low), as counter_words(i), on plain scalars (see threefry2x32_inplace).
NAX_HOST_DEVICE constexpr void counter_cipher(Key key, index_t i, std::uint32_t& w0, std::uint32_t& w1) {
  const auto u = static_cast<std::uint64_t>(i);
  w0 = static_cast<std::uint32_t>(u >> 32);
  w1 = static_cast<std::uint32_t>(u);
  threefry2x32_inplace(key.k0, key.k1, w0, w1);
}

// jax.random.bits(key, shape, uint32)[i]: xor of the two cipher words of counter i.
NAX_HOST_DEVICE constexpr std::uint32_t random_bits32(Key key, index_t i) {
  std::uint32_t w0 = 0, w1 = 0;
  counter_cipher(key, i, w0, w1);
  return w0 ^ w1;
}

// jax.random.bits(key, shape, uint64)[i]: the two words concatenated, first word high.
NAX_HOST_DEVICE constexpr std::uint64_t random_bits64(Key key, index_t i) {
  std::uint32_t w0 = 0, w1 = 0;
  counter_cipher(key, i, w0, w1);
  return (static_cast<std::uint64_t>(w0) << 32) | w1;
}

// The bit width JAX draws for a value type: 32 for float/int32/uint32, 64 for double/int64.
template <class T>
NAX_HOST_DEVICE constexpr auto random_bits(Key key, index_t i) {
  if constexpr (sizeof(T) == 8) {
    return random_bits64(key, i);
  } else {
    static_assert(sizeof(T) == 4, "nax::random draws 32- or 64-bit values");
    return random_bits32(key, i);
  }
}

}  // namespace nax::random
