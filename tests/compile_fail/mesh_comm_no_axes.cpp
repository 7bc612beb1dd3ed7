// expect: nax: a communicator needs at least one mesh axis: comm<A\.\.\.>\(\)
// expect: require_some_mesh_axis<nax::axes<> ?>
// A communicator asked for with no mesh axis (meant: over the whole mesh, comm<data, model>()).
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);
NAX_AXIS(model);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  mesh.run([](nax::mesh_device<data, model>& device) { device.comm<>().barrier(); });
}
