// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<tok,
// take<A> gathers along an axis of x; x has no axis tok.
#include <nax/nax.hpp>

NAX_AXIS(vocab);
NAX_AXIS(width);
NAX_AXIS(tok);

int main() {
  nax::Array<float, vocab, width> table({5, 3});
  nax::Array<int, tok> tokens({4});
  auto e = nax::take<tok>(table, tokens);
  (void)e;
}
