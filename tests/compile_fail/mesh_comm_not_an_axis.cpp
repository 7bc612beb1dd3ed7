// expect: not a mesh axis: the mesh has no axis of this name
// expect: require_mesh_axis<batch, nax::axes<data, model> ?>
// A communicator over a name that is not a mesh axis (a logical axis, say).
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  mesh.run([](nax::mesh_device<data, model>& device) { device.comm<batch>().barrier(); });
}
