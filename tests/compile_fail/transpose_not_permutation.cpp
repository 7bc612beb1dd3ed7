// expect: transpose needs every axis of the expression exactly once
// expect: require_permutation<nax::axes<in>, nax::axes<batch, in> ?>
// transpose to an order that leaves out an axis.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto t = nax::transpose<in>(x);  // batch left out
  (void)t;
}
