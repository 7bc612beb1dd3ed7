// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<out,
// concatenate along an axis the operands lack.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto c = nax::concatenate<out>(x, x);  // x has no axis out
  (void)c;
}
