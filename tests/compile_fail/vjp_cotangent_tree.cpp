// expect: vjp: the pullback's argument has another number of leaves than f's outputs
// expect: require_cotangent_tree<
// A pullback of a function with two outputs given one cotangent.
#include <nax/nax.hpp>

NAX_AXIS(in);

int main() {
  nax::Array<double, in> x({3});
  auto [ys, pullback] = nax::vjp([](const auto& a) { return nax::tuple(nax::sin(a), nax::cos(a)); })(x);
  auto g = pullback(x);  // two outputs, one cotangent
  (void)g;
}
