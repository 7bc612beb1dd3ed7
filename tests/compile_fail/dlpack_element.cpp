// expect: DLPack: the element type T has no DLPack data type here; use bool, an integer type, float or double
// expect: require_dlpack_element<long double>
// from_dlpack of long double (DLPack has no portable code for it).
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(i);

int main() {
  nax::dlpack::DLManagedTensor* m = nullptr;
  auto t = nax::from_dlpack<long double, i>(m);
  (void)t;
}
