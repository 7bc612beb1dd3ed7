// expect: dot<Axis>: the contracted axis must be an axis of both operands
// expect: require_contracted_in_both<batch, nax::axes<batch, in>, nax::axes<in, out> ?>
// dot over an axis that only the left operand has.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, in, out> w({3, 2});
  auto y = nax::dot<batch>(x, w);  // w has no axis batch
  (void)y;
}
