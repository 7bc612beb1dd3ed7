// expect-compile
// Control for the mesh compile-fail snippets: the same calls, spelled correctly.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);
NAX_AXIS(model);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  mesh.comm<data, model>(0);
  mesh.run([](nax::mesh_device<data, model>& device) { device.comm<model>(); });
  return mesh.size<model>();
}
