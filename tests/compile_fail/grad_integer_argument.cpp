// expect: grad differentiates only with respect to floating-point arrays
// expect: require_floating_variable<int
// Differentiating with respect to an integer array.
#include <nax/nax.hpp>
NAX_AXIS(row);
int main() {
  nax::Array<int, row> k({2});
  nax::Array<float, row> x({2});
  auto g = nax::grad([&](const auto& a) { return nax::sum(x * a); })(k);
  (void)g;
}
