// expect: one extent per axis is needed \(Axes\), and a different number of extents was given
// expect: require_extent_count<nax::axes<batch, in> ?, 3
// A view constructed with more extents than it has axes.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  float data[24] = {};
  nax::ArrayView<float, batch, in> v(data, {2, 3, 4});  // two axes, three extents
  (void)v;
}
