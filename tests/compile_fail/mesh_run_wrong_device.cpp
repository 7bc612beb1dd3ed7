// expect: nax: Mesh::run\(f\) calls f\(mesh_device<Names\.\.\.>&\) on every device
// Mesh::run with a function of another mesh's device type (a mesh over data, f over model).
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);
NAX_AXIS(model);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  mesh.run([](nax::mesh_device<model>& device) { device.comm<model>(); });
}
