// expect: duplicate axis name: an array or expression names the same axis twice
// expect: require_unique_axes<nax::axes<batch, batch> ?>
// A view type naming the same axis twice.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  float data[4] = {};
  nax::ArrayView<float, batch, batch> v(data, {2, 2});  // batch twice
  (void)v;
}
