// expect: nax: dynamic_update_slice<A>\(x, update, start\) needs an update with the axes of x
// an update without x's column axis (lax.dynamic_update_slice needs the operand's rank).
#include <nax/nax.hpp>

NAX_AXIS(row);
NAX_AXIS(col);

int main() {
  nax::Array<float, row, col> x({4, 3});
  nax::Array<float, row> update({2});
  auto y = nax::dynamic_update_slice<row>(x, update, 1);
  (void)y;
}
