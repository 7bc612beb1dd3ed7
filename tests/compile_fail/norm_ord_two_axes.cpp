// expect: nax: norm<A>\(x, ord\) takes one axis \(a vector norm\)
// expect: require_one_norm_axis<row, col>
// ord::inf over two axes would be jnp.linalg.norm's matrix norm (max row sum), not max |x|.
#include <nax/nax.hpp>

NAX_AXIS(row);
NAX_AXIS(col);

int main() {
  nax::Array<float, row, col> x({3, 3});
  auto n = nax::norm<row, col>(x, nax::ord::inf);
  (void)n;
}
