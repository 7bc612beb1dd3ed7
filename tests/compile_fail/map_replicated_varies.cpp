// expect: an output declared replicated varies over the mapped axis N
// expect: require_replicated_output_not_mapped<batch, nax::axes<batch> ?>
// out_axes(replicated) on an output that varies over the mapped axis batch (it needs a
// collective such as psum first, or a position).
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto y = nax::vmap<batch>([](const auto& row) { return row * 2.f; }, nax::out_axes(nax::replicated))(x);
  (void)y;
}
