// expect: not a mesh axis: the mesh has no axis of this name
// expect: require_mesh_axis<model, nax::axes<data> ?>
// Asking a mesh for the size of an axis it does not have.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);
NAX_AXIS(model);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  return mesh.size<model>();  // the mesh has no axis model
}
