// expect: nax: scatter<A>\(x, idx, updates\) needs updates with the axes of take<A>\(x, idx\)
// expect: require_update_axes<nax::axes<tok>, nax::axes<tok, width> ?>
// The updates of an embedding's rows need the token axis and the width, as take's result has.
#include <nax/nax.hpp>

NAX_AXIS(vocab);
NAX_AXIS(width);
NAX_AXIS(tok);

int main() {
  nax::Array<float, vocab, width> table({5, 3});
  nax::Array<int, tok> tokens({4});
  nax::Array<float, tok> updates({4});
  auto e = nax::scatter_add<vocab>(table, tokens, updates);
  (void)e;
}
