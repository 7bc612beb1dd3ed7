// expect: jvp takes arguments of static structure
// expect: require_static_jvp_argument<std::vector<
// jvp of a function of a std::vector of layers (vjp and grad take one; jvp does not yet).
#include <nax/nax.hpp>
#include <vector>

NAX_AXIS(in);

int main() {
  std::vector<nax::Array<double, in>> layers(2, nax::Array<double, in>({3}));
  auto [y, t] = nax::jvp([](const auto& ls) { return nax::sum(ls[0] * ls[1]); }, nax::tuple(layers), nax::tuple(layers));
  (void)y;
}
