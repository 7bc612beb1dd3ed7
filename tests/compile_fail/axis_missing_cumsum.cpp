// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<col,
// a running sum along an axis the operand lacks.
#include <nax/nax.hpp>

NAX_AXIS(row);
NAX_AXIS(col);

int main() {
  nax::Array<float, row> x({4});
  auto y = nax::cumsum<col>(x);
  (void)y;
}
