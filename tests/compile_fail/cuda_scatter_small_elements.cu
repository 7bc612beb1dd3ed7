// expect: nax: scatter_add, scatter_max and scatter_min on the CUDA backend need elements of 4 or 8 bytes
// The device's atomics work on 4- and 8-byte words; a scatter_max of int16 has none.
#include <nax/cuda.hpp>

#include <cstdint>

NAX_AXIS(vocab);
NAX_AXIS(tok);

int main() {
  nax::cuda::Array<std::int16_t, vocab> x({5});
  nax::cuda::Array<int, tok> idx({3});
  nax::cuda::Array<std::int16_t, tok> u({3});
  nax::cuda::Array<std::int16_t, vocab> y = nax::scatter_max<vocab>(x, idx, u);
  (void)y;
}
