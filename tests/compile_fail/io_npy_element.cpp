// expect: nax::io: \.npy files hold bool, integers of 1, 2, 4 or 8 bytes, float or double; the element type T is none of these
// expect: require_npy_element<long double>
// long double has no portable .npy dtype.
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(in);

int main() {
  nax::Array<long double, in> x({3});
  nax::io::save_npy("x.npy", x);
}
