// expect: nax::random::fold_in: data must be an integer
// fold_in of a floating-point number into keys along batch.
#include <nax/nax.hpp>

NAX_AXIS(batch);

int main() {
  auto keys = nax::random::split<batch>(nax::random::key(0), 4);
  auto folded = nax::random::fold_in(keys, 0.5);
  (void)folded;
}
