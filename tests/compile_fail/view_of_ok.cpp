// expect-compile
// The control of view_of_rank and view_of_no_rank: one name per index of a view with a rank().
#include <nax/nax.hpp>

#include "view_of_strided.hpp"

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  float memory[4] = {};
  auto v = nax::view_of<in, out>(strided{memory});
  float s = nax::sum(v).item();
  (void)s;
}
