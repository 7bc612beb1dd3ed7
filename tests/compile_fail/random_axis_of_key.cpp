// expect: nax::random: a generated axis is already an axis of the key
// expect: require_generated_axes_new<nax::axes<batch>, nax::axes<batch> ?>
// Keys split along batch, then sampled along batch again: the sample axis needs its own name.
#include <nax/nax.hpp>

NAX_AXIS(batch);

int main() {
  auto keys = nax::random::split<batch>(nax::random::key(0), 4);
  auto noise = nax::random::normal<batch>(keys, {3});
  (void)noise;
}
