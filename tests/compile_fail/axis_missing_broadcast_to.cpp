// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<in,
// broadcast_to a list of axes that lacks one of the operand's axes.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto b = nax::broadcast_to<batch, out>(x, {4, 5});  // the target lacks x's axis in
  (void)b;
}
