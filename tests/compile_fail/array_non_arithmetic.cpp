// expect: Array element types are arithmetic types
// expect: Array<std::(__cxx11::)?basic_string<char
// An array of a non-arithmetic element type.
#include <nax/nax.hpp>
#include <string>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<std::string, batch> x;  // not arithmetic
  (void)x;
}
