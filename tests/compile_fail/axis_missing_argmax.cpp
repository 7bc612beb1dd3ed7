// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<out,
// argmax along an axis the operand lacks.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto i = nax::argmax<out>(x);  // x has no axis out
  (void)i;
}
