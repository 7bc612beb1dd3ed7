// expect-compile
// The control of io_npy_element: save_npy and load_npy of the element types .npy holds.

#include <nax/nax.hpp>
#include <cstdint>
#include <nax/io.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  nax::Array<double, in, out> x({2, 3});
  nax::io::save_npy("x.npy", x);
  nax::io::save_npy("y.npy", x * 2.0);
  auto y = nax::io::load_npy<std::uint16_t, out>("z.npy");
  auto b = nax::io::load_npy<bool>("b.npy");
  (void)y;
  (void)b;
}
