// expect: vjp differentiates arguments of static structure
// expect: require_static_vjp_argument<std::vector<
// vjp of a function of a std::vector of layers (grad takes one; vjp does not yet).
#include <nax/nax.hpp>
#include <vector>

NAX_AXIS(in);

int main() {
  std::vector<nax::Array<double, in>> layers(2, nax::Array<double, in>({3}));
  auto [y, pullback] = nax::vjp([](const auto& ls) { return nax::sum(ls[0] * ls[1]); })(layers);
  (void)y;
}
