// expect: no promotion is defined between these element types
// expect: require_promotable<(long unsigned int|unsigned long), long( int)?>
// dot of uint64 and int64 arrays: no exact common element type.
#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<std::uint64_t, batch, in> u({4, 3});
  nax::Array<std::int64_t, in> s({3});
  auto e = nax::dot<in>(u, s);  // uint64 with int64
  (void)e;
}
