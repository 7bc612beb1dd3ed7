// expect: Reduce over Op, which is not a reduction_op
// expect: reduction_op<Op>
// A reduction without combine: a Reduce node over it fails with the concept's name.
#include <nax/nax.hpp>

NAX_AXIS(i);

struct only_identity_op {
  template <class T>
  using result = T;
  template <class T>
  static constexpr T identity() { return T(0); }
};

int main() {
  nax::Array<float, i> x({4});
  auto e = nax::detail::as_expr(x);
  nax::detail::Reduce<only_identity_op, decltype(e), i> r(e);
  (void)r;
}
