// Threefry-2x32 block cipher (Salmon et al., Random123), 20 rounds: the hash behind every JAX
// random number. Mirrors jax/_src/random/threefry2x32.py `_threefry2x32_lowering`
// (unrolled form); plain uint32 math so it runs unchanged in CUDA kernels and OpenMP loops.
#pragma once
#include <cstdint>

#include "nax/core/config.hpp"

namespace nax::random {

// The cipher's two 32-bit output words (also its two counter words).
struct Words2 {
  std::uint32_t w0;
  std::uint32_t w1;
};

namespace detail {

NAX_HOST_DEVICE constexpr std::uint32_t rotl32(std::uint32_t v, unsigned r) {
  return (v << r) | (v >> (32u - r));  // r is always in 6..29, never 0 or 32
}

// Four mix rounds (`apply_round` in JAX): x0 += x1; x1 = rotl(x1, r) ^ x0.
NAX_HOST_DEVICE constexpr void threefry_rounds(std::uint32_t& x0, std::uint32_t& x1, unsigned r0,
                                               unsigned r1, unsigned r2, unsigned r3) {
  x0 += x1; x1 = rotl32(x1, r0) ^ x0;
  x0 += x1; x1 = rotl32(x1, r1) ^ x0;
  x0 += x1; x1 = rotl32(x1, r2) ^ x0;
  x0 += x1; x1 = rotl32(x1, r3) ^ x0;
}

}  // namespace detail

// threefry2x32 in place: the counter words (x0, x1) become the cipher words. Plain scalars
// (no struct copies) so that a loop calling it per element vectorises; GCC does not
// vectorise loops that still copy a returned struct after inlining.
NAX_HOST_DEVICE NAX_ALWAYS_INLINE constexpr void threefry2x32_inplace(std::uint32_t k0, std::uint32_t k1,
                                                                      std::uint32_t& x0, std::uint32_t& x1) {
  const std::uint32_t k2 = k0 ^ k1 ^ 0x1BD11BDAu;  // key-schedule parity word
  x0 += k0;
  x1 += k1;
  detail::threefry_rounds(x0, x1, 13, 15, 26, 6);
  x0 += k1; x1 += k2 + 1u;
  detail::threefry_rounds(x0, x1, 17, 29, 16, 24);
  x0 += k2; x1 += k0 + 2u;
  detail::threefry_rounds(x0, x1, 13, 15, 26, 6);
  x0 += k0; x1 += k1 + 3u;
  detail::threefry_rounds(x0, x1, 17, 29, 16, 24);
  x0 += k1; x1 += k2 + 4u;
  detail::threefry_rounds(x0, x1, 13, 15, 26, 6);
  x0 += k2; x1 += k0 + 5u;
}

// threefry2x32(key (k0, k1), counter (x0, x1)) -> two words. Unsigned overflow wraps, as in XLA.
NAX_HOST_DEVICE constexpr Words2 threefry2x32(std::uint32_t k0, std::uint32_t k1, std::uint32_t x0,
                                              std::uint32_t x1) {
  threefry2x32_inplace(k0, k1, x0, x1);
  return {x0, x1};
}

}  // namespace nax::random
