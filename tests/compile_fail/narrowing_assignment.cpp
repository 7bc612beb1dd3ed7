// expect: assignment would narrow the element type \(Source to Destination\)
// expect: require_no_narrowing<float, double>
// A double expression assigned to a float array.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<double, batch> x({3});
  nax::Array<float, batch> y = x * 2.0;  // double into float
  (void)y;
}
