// expect: unbound axis name: a collective names an axis \(UnboundAxes\) that no enclosing vmap/xmap/pmap binds
// expect: require_bound<nax::axes<hidden> ?>
// Inside xmap over batch (bound to the mesh axis data), a pmean over hidden, which the xmap
// does not bind.
#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(batch);
NAX_AXIS(hidden);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  nax::Array<float, batch, hidden> x({8, 3});
  auto y = nax::xmap<nax::bind<batch, data>>([](const auto& row) { return nax::pmean<hidden>(row); }, mesh)(x);
  (void)y;
}
