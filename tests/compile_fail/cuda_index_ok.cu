// expect-compile
// The control of cuda_scatter_small_elements: take, the scatters of 4- and 8-byte elements
// and grad through take on device arrays.
#include <nax/cuda.hpp>

#include <cstdint>

NAX_AXIS(vocab);
NAX_AXIS(width);
NAX_AXIS(tok);

int main() {
  nax::cuda::Array<float, vocab, width> table({5, 3});
  nax::cuda::Array<int, tok> tokens({4});
  nax::cuda::Array<float, tok, width> e = nax::take<vocab>(table, tokens);
  nax::cuda::Array<float, vocab, width> s = nax::scatter_add<vocab>(table, tokens, e);
  nax::cuda::Array<std::int64_t, vocab> m = nax::scatter_min<vocab>(nax::cuda::Array<std::int64_t, vocab>({5}), tokens,
                                                                    nax::cuda::Array<std::int64_t, tok>({4}));
  auto g = nax::grad([&](const auto& t) { return nax::sum(nax::square(nax::take<vocab>(t, tokens))); })(table);
  (void)s;
  (void)m;
  (void)g;
}
