// expect: nax: eye, tri, tril and triu need two different axes \(rows A, columns B\)
// tril over one axis named twice: rows and columns must be different axes.
#include <nax/nax.hpp>

NAX_AXIS(row);
NAX_AXIS(col);

int main() {
  nax::Array<float, row, col> x({3, 3});
  auto lower = nax::tril<row, row>(x);
  (void)lower;
}
