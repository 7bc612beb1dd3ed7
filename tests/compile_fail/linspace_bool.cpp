// expect: nax: linspace needs a numeric element type
// linspace of bools: values between start and stop have no bool form.
#include <nax/nax.hpp>

NAX_AXIS(row);

int main() {
  auto x = nax::linspace<row, bool>(0.0, 1.0, 5);
  (void)x;
}
