// expect: nax: searchsorted<A>\(sorted, values\): the values have the sorted axis A
// expect: require_values_without_sorted_axis<bins, nax::axes<row, bins> ?>
// The values carry the axis being searched: each value would have to be a whole line.
#include <nax/nax.hpp>

NAX_AXIS(bins);
NAX_AXIS(row);

int main() {
  nax::Array<float, bins> edges({4});
  nax::Array<float, row, bins> x({2, 4});
  auto at = nax::searchsorted<bins>(edges, x);
  (void)at;
}
