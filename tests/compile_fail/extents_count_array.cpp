// expect: one extent per axis is needed \(Axes\), and a different number of extents was given
// expect: require_extent_count<nax::axes<batch, in> ?, 1
// An array constructed with fewer extents than it has axes.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4});  // two axes, one extent
  (void)x;
}
