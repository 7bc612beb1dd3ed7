// expect: an argument that in_axes marks as not mapped \(none\) has an axis named like the mapped axis N
// expect: require_unmapped_argument_lacks_axis<batch,
// in_axes(none) on an argument that has the mapped axis batch.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, batch> y({4});
  auto z = nax::vmap<batch>([](const auto& a, const auto& b) { return a + b; }, nax::in_axes(nax::mapped, nax::none))(x, y);
  (void)z;
}
