// expect: nax: sort, argsort, top_k and searchsorted order float, double, integer and bool elements
// A sort of long double: its keys have no total-order integer form here.
#include <nax/nax.hpp>

NAX_AXIS(row);

int main() {
  nax::Array<long double, row> x({3});
  auto s = nax::sort<row>(x);
  (void)s;
}
