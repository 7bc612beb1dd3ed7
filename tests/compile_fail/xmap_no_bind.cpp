// expect: nax: xmap needs at least one bind<logical, mesh_axis>
// xmap with no bind<...> at all: nothing says which axis to split over the mesh.
#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(batch);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  nax::Array<float, batch> x({4});
  auto y = nax::xmap([](const auto& v) { return v * 2.f; }, mesh)(x);
  (void)y;
}
