// expect: no promotion is defined between these element types
// expect: require_promotable<(long unsigned int|unsigned long), long( int)?>
// where() with uint64 and int64 branches: no exact common element type, as for u + s.
#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<bool, batch> c({3});
  nax::Array<std::uint64_t, batch> u({3});
  nax::Array<std::int64_t, batch> s({3});
  auto e = nax::where(c, u, s);  // uint64 with int64
  (void)e;
}
