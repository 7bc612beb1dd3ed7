// expect: grad differentiates with respect to arrays \(nax::Array, views, expressions\) or pytrees
// A differentiated argument that is a plain number, not an array.
#include <nax/nax.hpp>
NAX_AXIS(row);
int main() {
  nax::Array<float, row> x({2});
  auto g = nax::grad([](float s, const auto& a) { return nax::sum(a * s); })(2.f, x);
  (void)g;
}
