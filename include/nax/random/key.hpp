// A threefry2x32 PRNG key and the key-level operations of jax.random: key(seed), split, fold_in.
// Partitionable mode (jax_threefry_partitionable=True, JAX's default since 0.5) throughout.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "nax/core/config.hpp"
#include "nax/core/errors.hpp"
#include "nax/random/threefry.hpp"

namespace nax::random {

// The raw key data JAX shows with jax.random.key_data(k): two uint32 words.
struct Key {
  std::uint32_t k0 = 0;
  std::uint32_t k1 = 0;
  friend constexpr bool operator==(const Key&, const Key&) = default;
};

// A key as one array element: key data (k0, k1) packed into a uint64, k0 in the high word. Key
// arrays are then ordinary nax arrays (Array<std::uint64_t, batch>) and a key is a rank-0
// expression; the counterparts of jax.random.key_data and jax.random.wrap_key_data.
NAX_HOST_DEVICE constexpr std::uint64_t key_data(Key key) {
  return (static_cast<std::uint64_t>(key.k0) << 32) | key.k1;
}
NAX_HOST_DEVICE constexpr Key wrap_key_data(std::uint64_t data) {
  return {static_cast<std::uint32_t>(data >> 32), static_cast<std::uint32_t>(data)};
}

NAX_HOST_DEVICE constexpr Words2 threefry2x32(Key key, std::uint32_t x0, std::uint32_t x1) {
  return threefry2x32(key.k0, key.k1, x0, x1);
}

// jax.random.key(seed) with jax_enable_x64=True (`threefry_seed`): the 64-bit seed's two's
// complement words, high then low; key(-1) = (0xFFFFFFFF, 0xFFFFFFFF).
NAX_HOST_DEVICE constexpr Key key(std::int64_t seed) {
  const auto u = static_cast<std::uint64_t>(seed);
  return {static_cast<std::uint32_t>(u >> 32), static_cast<std::uint32_t>(u)};
}

// jax.random.key(seed) in JAX's default 32-bit mode: `random_seed` first narrows the seed to
// int32, so the high word is always 0; key_x32(-1) = (0, 0xFFFFFFFF). Equals key() on [0, 2^32).
NAX_HOST_DEVICE constexpr Key key_x32(std::int64_t seed) {
  return {0u, static_cast<std::uint32_t>(static_cast<std::uint64_t>(seed))};
}

// The counter of element i (row-major linear index) of a sampled shape: the uint64 iota split
// into (high, low) words, as `prng.iota_2x32_shape` builds it. A scalar shape () is index 0.
NAX_HOST_DEVICE constexpr Words2 counter_words(index_t i) {
  const auto u = static_cast<std::uint64_t>(i);
  return {static_cast<std::uint32_t>(u >> 32), static_cast<std::uint32_t>(u)};
}

// Key i of jax.random.split(key, n) (or of a split shape, i being the row-major linear index):
// both cipher words of counter i (`_threefry_split_foldlike`). n itself does not enter.
NAX_HOST_DEVICE constexpr Key split_one(Key key, index_t i) {
  const auto u = static_cast<std::uint64_t>(i);
  std::uint32_t w0 = static_cast<std::uint32_t>(u >> 32), w1 = static_cast<std::uint32_t>(u);
  threefry2x32_inplace(key.k0, key.k1, w0, w1);  // plain scalars: vectorises (threefry.hpp)
  return {w0, w1};
}

// jax.random.fold_in(key, data) = threefry_2x32(key, threefry_seed(uint32(data))) = the
// cipher at counter (0, data); so fold_in(key, d) == split_one(key, d) for any d < 2^32.
// A signed data value wraps to uint32, as jnp.asarray(data, dtype='uint32') does.
NAX_HOST_DEVICE constexpr Key fold_in(Key key, std::uint32_t data) {
  std::uint32_t w0 = 0u, w1 = data;
  threefry2x32_inplace(key.k0, key.k1, w0, w1);
  return {w0, w1};
}

// Throws unless n >= 0: the count given to split.
inline void check_split_count(index_t n) {
  if (n < 0) {
    throw argument_error("random::split: n must be >= 0, got n = " + std::to_string(n));
  }
}

// jax.random.split(key): two keys, `auto [a, b] = split(k);`.
constexpr std::array<Key, 2> split(Key key) { return {split_one(key, 0), split_one(key, 1)}; }

// Host convenience: all n keys of jax.random.split(key, n). (split<Axis>(key, n) in
// random/split.hpp gives them as an expression along a named axis instead.)
inline std::vector<Key> split(Key key, index_t n) {
  check_split_count(n);
  std::vector<Key> keys(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) keys[static_cast<std::size_t>(i)] = split_one(key, i);
  return keys;
}

}  // namespace nax::random
