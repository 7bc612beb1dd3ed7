// expect: transpose needs every axis of the expression exactly once
// expect: require_permutation<nax::axes<in, batch, in>, nax::axes<batch, in> ?>
// transpose to an order that names an axis twice.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto t = nax::transpose<in, batch, in>(x);  // in twice
  (void)t;
}
