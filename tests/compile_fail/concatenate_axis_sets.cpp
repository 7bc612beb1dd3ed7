// expect: concatenate and stack need operands with the same axis names
// expect: require_same_axes_to_join<[^']*[<, ]batch, out>
// concatenate of operands with different axis names.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, batch, out> y({4, 3});
  auto c = nax::concatenate<batch>(x, y);  // in vs out
  (void)c;
}
