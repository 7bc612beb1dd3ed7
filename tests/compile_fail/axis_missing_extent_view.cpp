// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<out,
// ArrayView::extent<A>() of an axis the view lacks.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto v = x.view();
  return static_cast<int>(v.extent<out>());  // v has no axis out
}
