// expect: axis name already taken: the new axis name is already an axis of the expression
// expect: require_axis_absent<batch,
// stack along a new axis whose name the operands already have.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto s = nax::stack<batch>(x, x);  // x already has batch
  (void)s;
}
