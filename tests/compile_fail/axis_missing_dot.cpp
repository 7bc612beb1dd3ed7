// expect: dot<Axis>: the contracted axis must be an axis of both operands
// expect: require_contracted_in_both<out, nax::axes<batch, in>, nax::axes<in, b2> ?>
// dot over an axis neither operand has.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, in, b2> w({3, 2});
  auto y = nax::dot<out>(x, w);  // neither x nor w has out
  (void)y;
}
