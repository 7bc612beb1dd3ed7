// expect: out_axes position out of range
// expect: require_position_in_range<batch, nax::axes<in> ?, 2>
// out_axes(at<2>) for an output with one visible axis (positions 0 and 1 are valid).
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto y = nax::vmap<batch>([](const auto& row) { return row * 2.f; }, nax::out_axes(nax::at<2>))(x);
  (void)y;
}
