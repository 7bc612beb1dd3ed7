// expect: nax: collectives move bool, 8- to 64-bit integers, float and double only
// expect: require_communicable<long double>
// An all-reduce of a long double, which no communicator can move.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/mesh/mesh.hpp>

NAX_AXIS(data);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  mesh.run([](nax::mesh_device<data>& device) {
    long double x = device.position();
    device.comm<data>().all_reduce(&x, 1);
  });
}
