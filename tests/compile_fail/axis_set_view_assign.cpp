// expect: axis sets differ: assignment needs the same axis names on both sides
// expect: require_same_axis_set<nax::axes<batch, in>, nax::axes<batch, out> ?>
// ArrayView::assign of an expression with other axis names.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, batch, out> y({4, 3});
  x.view().assign(y);  // {batch, out} into {batch, in}
}
