// expect: jvp: the tangent of a std::vector argument must be a std::vector too
// expect: require_vector_tangent<std::array<
// jvp of a function of a std::vector of layers, given a std::array as the tangent.
#include <nax/nax.hpp>
#include <array>
#include <vector>

NAX_AXIS(in);

int main() {
  std::vector<nax::Array<double, in>> layers(2, nax::Array<double, in>({3}));
  std::array<nax::Array<double, in>, 2> tangents{nax::Array<double, in>({3}), nax::Array<double, in>({3})};
  auto [y, t] = nax::jvp([](const auto& ls) { return nax::sum(ls[0] * ls[1]); }, nax::tuple(layers), nax::tuple(tangents));
  (void)y;
}
