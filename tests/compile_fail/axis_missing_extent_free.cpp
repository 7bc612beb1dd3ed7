// expect: nax: axis not found
// expect: require_axis_present<b, nax::axes<a> ?>
// nax::extent<A>(x) of an axis the expression lacks (as take<A>(x, i) checks it too).
#include <nax/nax.hpp>

NAX_AXIS(a);
NAX_AXIS(b);

int main() {
  nax::Array<float, a> x({3});
  return int(nax::extent<b>(x * 2.f));
}
