// expect: merge needs two different axes
// expect: (Outer = batch; Inner = batch|merge<batch, batch,)
// merge of an axis with itself.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto m = nax::merge<batch, batch, b2>(x);  // batch twice
  (void)m;
}
