// expect: an array \(Leaf\) has two axes bound to one mesh axis
// expect: require_one_axis_per_mesh_axis<nax::Array<float, batch, hidden> ?, nax::axes<data, data> ?>
// xmap binds both batch and hidden to the mesh axis data (allowed), and x has both axes.
#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(hidden);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax::Array<float, batch, hidden> x({8, 4});
  auto y = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, data>>([](const auto& v) { return v * 2.f; }, mesh)(x);
  (void)y;
}
