// expect: item\(\) needs a rank-0 expression: reduce the remaining Axes first
// expect: require_rank_zero<nax::axes<batch> ?>
// nax::item(e) of an expression that still has an axis.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  float v = nax::item(nax::sum<in>(x));  // batch remains
  (void)v;
}
