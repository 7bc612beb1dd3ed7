// expect: nax: dynamic_slice and dynamic_update_slice take a start with no axes of its own
// a start that varies over an axis of its own (one start per row: use vmap over the rows).

#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(row);
NAX_AXIS(col);

int main() {
  nax::Array<float, row, col> x({4, 3});
  nax::Array<std::int32_t, row> starts({4});
  auto y = nax::dynamic_slice<col>(x, starts, 2);
  (void)y;
}
