// expect: nax: a Mesh needs at least one axis name
// expect: require_mesh_has_axes<nax::axes<> ?>
// A mesh of four devices with no axis names: nothing to shard along or communicate over.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

int main() {
  nax::Mesh<> mesh(nax::host::devices(4), {});
  (void)mesh;
}
