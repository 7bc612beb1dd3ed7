// expect: the value varies over a mapped axis \(MappedAxes\) of an enclosing vmap/xmap
// expect: require_not_mapped<nax::axes<batch> ?>
// Inside vmap<batch>, storing a value that varies over batch into an array.
#include <nax/nax.hpp>
#include <nax/transform/vmap.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto f = [](const auto& row) {
    nax::Array<float, in> copy = row * 2.f;  // row varies over the mapped axis batch
    return copy;
  };
  auto y = nax::vmap<batch>(f)(x);
  (void)y;
}
