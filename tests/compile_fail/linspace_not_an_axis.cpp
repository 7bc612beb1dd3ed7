// expect: nax: linspace needs an axis name declared with NAX_AXIS
// linspace with the element type where the axis name goes (linspace<A, T>: the axis first).
#include <nax/nax.hpp>

NAX_AXIS(t);

int main() {
  auto x = nax::linspace<double>(0.0, 1.0, 5);
  (void)x;
}
