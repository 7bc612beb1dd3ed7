// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<out,
// mean over an axis the operand lacks.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto m = nax::mean<out>(x);  // x has no axis out
  (void)m;
}
