// expect: axis sets differ: assignment needs the same axis names on both sides
// expect: require_same_axis_set<nax::axes<batch, b2>, nax::axes<batch, out> ?>
// Constructing an array from an expression with other axis names.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, in, out> w({3, 2});
  nax::Array<float, batch, b2> p = nax::dot<in>(x, w);  // the expression's axes are {batch, out}
  (void)p;
}
