// expect: nax: view_of<Axes\.\.\.>\(m\): give one axis name per index of m; m has Rank indices
// expect: require_foreign_rank<2, nax::axes<in> ?>
// A rank-2 mdspan-like view given one axis name.
#include <nax/nax.hpp>

#include "view_of_strided.hpp"

NAX_AXIS(in);

int main() {
  float memory[4] = {};
  auto v = nax::view_of<in>(strided{memory});
  (void)v;
}
