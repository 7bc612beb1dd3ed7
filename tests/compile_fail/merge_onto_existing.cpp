// expect: axis name already taken: the new axis name is already an axis of the expression
// expect: require_axis_absent<out,
// merge into a name the operand already has.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in, out> x({4, 3, 2});
  auto m = nax::merge<batch, in, out>(x);  // x already has out
  (void)m;
}
