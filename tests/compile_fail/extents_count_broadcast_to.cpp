// expect: one extent per axis is needed \(Axes\), and a different number of extents was given
// expect: require_extent_count<nax::axes<batch, in, out> ?, 2
// broadcast_to with fewer extents than target axes.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto b = nax::broadcast_to<batch, in, out>(x, {4, 3});  // three axes, two extents
  (void)b;
}
