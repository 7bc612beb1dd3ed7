// expect-compile
// The control: grad<1> with respect to a float array, an integer array in another position.
#include <nax/nax.hpp>
NAX_AXIS(row);
int main() {
  nax::Array<int, row> k({2});
  nax::Array<float, row> x({2});
  auto g = nax::grad<1>([](const auto& a, const auto& b) { return nax::sum(b * a); })(k, x);
  (void)g;
}
