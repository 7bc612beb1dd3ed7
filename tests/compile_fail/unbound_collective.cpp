// expect: unbound axis name: a collective names an axis \(UnboundAxes\) that no enclosing vmap/xmap/pmap binds
// expect: require_bound<nax::axes<devices> ?>
// A collective over an axis that no enclosing vmap/xmap/pmap binds, stored in an array.
#include <nax/nax.hpp>
#include <nax/transform/collectives.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(devices);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, batch, in> y = nax::psum<devices>(x);  // no vmap binds devices
  (void)y;
}
