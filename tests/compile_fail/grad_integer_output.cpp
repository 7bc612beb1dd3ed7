// expect: grad needs f to return a floating-point value
// expect: require_floating_output<int>
// The loss is an int32 count, which has no gradient.
#include <nax/nax.hpp>
NAX_AXIS(row);
int main() {
  nax::Array<float, row> x({2});
  auto g = nax::grad([](const auto& a) { return nax::sum(a > 0.f); })(x);
  (void)g;
}
