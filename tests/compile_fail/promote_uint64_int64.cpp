// expect: no promotion is defined between these element types
// expect: require_promotable<(long unsigned int|unsigned long), long( int)?>
// uint64 + int64 arrays: no exact common element type.
#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<std::uint64_t, batch> u({3});
  nax::Array<std::int64_t, batch> s({3});
  auto e = u + s;  // uint64 with int64
  (void)e;
}
