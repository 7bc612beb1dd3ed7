// expect: duplicate axis name: an array or expression names the same axis twice
// expect: require_unique_axes<nax::axes<batch, batch> ?>
// An array type naming the same axis twice.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, batch> x({2, 2});  // batch twice
  (void)x;
}
