// expect: an inner vmap over N returns a value that varies over N while an enclosing map also binds N
// expect: require_no_shadowed_reveal<i, ?true>
// An inner vmap rebinding the outer mapped name i cannot hand back i as a visible axis.
#include <nax/nax.hpp>
NAX_AXIS(i);
NAX_AXIS(k);
int main() {
  nax::Array<float, i, k> x({3, 4});
  auto outer = [](const auto& row) {
    return nax::vmap<i>([](const auto& v) { return v - nax::psum<i>(v); }, nax::in_axes(nax::from<k>))(row);
  };
  auto y = nax::vmap<i>(outer)(x);
  (void)y;
}
