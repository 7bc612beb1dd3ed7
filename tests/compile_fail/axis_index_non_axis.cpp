// expect: axis_index needs an axis name declared with NAX_AXIS
// expect: A = int
// axis_index of a type that is not an axis name.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  auto i = nax::axis_index<int>(3);  // int is not declared with NAX_AXIS
  (void)i;
}
