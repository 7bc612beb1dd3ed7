// expect: axis sets differ: assignment needs the same axis names on both sides
// expect: require_same_axis_set<nax::axes<batch, in>, nax::axes<batch> ?>
// Assigning an expression with other axis names to an existing array.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  x = nax::sum<in>(x);  // the expression's axes are {batch}
}
