// expect: unbound axis name: a collective names an axis \(UnboundAxes\) that no enclosing vmap/xmap/pmap binds
// expect: require_bound<nax::axes<hidden> ?>
// Inside vmap over batch, a psum over hidden, which no enclosing map binds; the result is
// stored in an array.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(hidden);
NAX_AXIS(in);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, batch, in> y = nax::vmap<batch>([](const auto& row) { return nax::psum<hidden>(row); })(x);
  (void)y;
}
