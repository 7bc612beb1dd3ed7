// expect: axis name already taken: the new axis name is already an axis of the expression
// expect: require_axis_absent<in,
// rename onto a name the operand already has.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto r = nax::rename<batch, in>(x);  // x already has in
  (void)r;
}
