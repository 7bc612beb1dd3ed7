// expect: grad needs f to return a rank-0 value
// expect: require_scalar_output<nax::axes<row>
// grad of a function whose result still has an axis (row): the message names it.
#include <nax/nax.hpp>
NAX_AXIS(row);
NAX_AXIS(col);
int main() {
  nax::Array<float, row, col> x({2, 3});
  auto g = nax::grad([](const auto& a) { return nax::sum<col>(a); })(x);
  (void)g;
}
