// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<out,
// transpose to an order naming an axis the operand lacks.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto t = nax::transpose<out, batch>(x);  // x has no axis out
  (void)t;
}
