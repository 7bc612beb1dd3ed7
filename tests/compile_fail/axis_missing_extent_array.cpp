// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<out,
// Array::extent<A>() of an axis the array lacks.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  return static_cast<int>(x.extent<out>());  // x has no axis out
}
