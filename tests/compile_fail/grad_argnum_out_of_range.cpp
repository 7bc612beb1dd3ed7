// expect: grad<argnums...>: an argnum \(Argnum\) is not the position of an argument
// expect: require_argnum_in_range<2, 2>
// grad<2> of a function called with two arguments (positions 0 and 1).
#include <nax/nax.hpp>
NAX_AXIS(row);
int main() {
  nax::Array<float, row> x({2}), y({2});
  auto g = nax::grad<2>([](const auto& a, const auto& b) { return nax::sum(a * b); })(x, y);
  (void)g;
}
