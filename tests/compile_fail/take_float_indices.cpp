// expect: nax: take and scatter need an index array of an integer type
// Indices must be integers: a float array of token ids is a mistake JAX also rejects.
#include <nax/nax.hpp>

NAX_AXIS(vocab);
NAX_AXIS(width);
NAX_AXIS(tok);

int main() {
  nax::Array<float, vocab, width> table({5, 3});
  nax::Array<float, tok> tokens({4});
  auto e = nax::take<vocab>(table, tokens);
  (void)e;
}
