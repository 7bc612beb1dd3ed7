// expect: xmap binds a logical axis to a mesh axis the mesh does not have
// expect: require_bound_to_mesh_axis<nax::bind<batch, model>, nax::axes<data> ?>
// xmap binds batch to the mesh axis model, which a Mesh<data> does not have.
#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  nax::Array<float, batch> x({8});
  auto y = nax::xmap<nax::bind<batch, model>>([](const auto& v) { return v * 2.f; }, mesh)(x);
  (void)y;
}
