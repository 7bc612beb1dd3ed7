// expect: axis names are tag types declared with NAX_AXIS
// expect: require_axis_names<nax::axes<int> ?>
// An array whose axis list holds a type that is not an axis name.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, int> x({3});  // int is not declared with NAX_AXIS
  (void)x;
}
