// expect: nax::random::randint draws int32, uint32, int64 or uint64
// randint with a 16-bit integer element type.
#include <nax/nax.hpp>

NAX_AXIS(sample);

int main() {
  auto r = nax::random::randint<std::int16_t, sample>(nax::random::key(0), {8}, 0, 10);
  (void)r;
}
