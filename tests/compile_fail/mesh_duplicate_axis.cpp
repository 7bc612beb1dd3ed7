// expect: duplicate mesh axis name: a Mesh names the same axis twice
// expect: require_unique_mesh_axes<nax::axes<data, data> ?>
// A mesh naming the same axis twice.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);
NAX_AXIS(model);

int main() {
  nax::Mesh<data, data> mesh(nax::host::devices(4), {2, 2});  // data twice
  (void)mesh;
}
