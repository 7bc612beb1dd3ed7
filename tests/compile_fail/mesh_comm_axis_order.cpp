// expect: a communicator over several mesh axes names them once each, in the mesh's order
// expect: require_mesh_order<nax::axes<model, data>, nax::axes<data, model> ?>
// The order of the axes fixes the members' ranks, so it must be the mesh's.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);
NAX_AXIS(model);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  mesh.comm<model, data>(0).barrier();
}
