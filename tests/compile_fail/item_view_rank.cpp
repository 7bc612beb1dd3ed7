// expect: item\(\) needs a rank-0 expression: reduce the remaining Axes first
// expect: require_rank_zero<nax::axes<batch, in> ?>
// item() of a view that is not rank 0.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  float v = x.view().item();  // the view has axes batch and in
  (void)v;
}
