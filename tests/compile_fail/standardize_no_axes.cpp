// expect: nax: standardize<Axes...>\(x\) needs the axes to normalise over
// standardize's mean and variance are over named axes; with none named there is no default.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(hidden);

int main() {
  nax::Array<float, batch, hidden> x({2, 3});
  auto y = nax::standardize(x);
  (void)y;
}
