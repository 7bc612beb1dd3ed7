// expect: xmap binds two logical axes to one mesh axis
// expect: require_mesh_axes_bound_once<nax::axes<data, data> ?>
// xmap binds both batch and hidden to the mesh axis data.
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
