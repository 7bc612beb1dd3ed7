// expect: axis names are tag types declared with NAX_AXIS
// expect: require_axis_names<nax::axes<batch, double> ?>
// A view whose axis list holds a type that is not an axis name.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  float data[6] = {};
  nax::ArrayView<float, batch, double> v(data, {2, 3});  // double is not declared with NAX_AXIS
  (void)v;
}
