// expect-compile
// The control of the bitwise checks (expr/bitwise.hpp): each function and operator on integer
// and bool elements, mixed types and C++ numbers, inside vmap and beside a grad, compiles; and
// printing an array still picks print.hpp's operator<< over the shift.

#include <nax/nax.hpp>
#include <cstdint>
#include <sstream>

NAX_AXIS(row);
NAX_AXIS(col);

int main() {
  nax::Array<std::int32_t, row, col> a({4, 3});
  nax::Array<std::uint8_t, col> u({3});
  nax::Array<bool, row> flag({4});
  nax::Array<float, row, col> x({4, 3});
  nax::Array<std::int32_t, row, col> b = nax::bitwise_and(a, u) | (nax::bitwise_or(a, 1) ^ nax::bitwise_xor(u, a));
  nax::Array<std::int32_t, row, col> c = nax::left_shift(a, u) + nax::right_shift(a, 3) + (a << 2) + (1 >> a) + ~a;
  nax::Array<std::int32_t, row, col> d = nax::bitwise_not(a) + nax::invert(a);
  nax::Array<bool, row> e = (flag & flag) | (~flag ^ nax::bitwise_not(flag));
  nax::Array<std::int32_t, row> f = nax::left_shift(flag, flag);  // int32, as jnp
  nax::Array<std::int16_t, col> g = nax::cast<std::int8_t>(u) & u;  // int8 with uint8: int16
  nax::Array<std::int32_t, row, col> h = nax::vmap<row>([](const auto& r) { return r >> 1; })(a);
  auto grad = nax::grad([&](const auto& v) { return nax::sum(nax::where((a & 1) == 0, v, -v)); })(x);
  std::ostringstream out;
  out << b << (a << 1).extents()[0];
  (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)grad;
}
