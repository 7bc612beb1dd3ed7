// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<out,
// split of an axis the operand lacks.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

NAX_AXIS(outer);
NAX_AXIS(inner);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto s = nax::split<out, outer, inner>(x, 2);  // x has no axis out
  (void)s;
}
