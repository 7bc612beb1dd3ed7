// expect: assignment would narrow the element type \(Source to Destination\)
// expect: require_no_narrowing<float, double>
// Array::operator= of a double array into a float array.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch> y({3});
  nax::Array<double, batch> x({3});
  y = x;  // double into float
}
