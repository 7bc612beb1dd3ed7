// expect-compile
// The control of jvp_tangent_axes, jvp_tangent_count, jvp_tangent_tree and jvp_vector_tangent:
// one tangent per primal, with its axes (in another order) and its pytree structure (a
// std::array of layers, and a std::vector given a std::vector).
#include <nax/nax.hpp>
#include <array>
#include <vector>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  std::array<nax::Array<double, in>, 2> p{nax::Array<double, in>({3}), nax::Array<double, in>({3})};
  nax::Array<double, in, out> w({3, 2});
  nax::Array<double, out, in> tw({2, 3});
  auto [y, ty] = nax::jvp([](const auto& q, const auto& v) { return nax::dot<in>(q[0] * q[1], v); }, nax::tuple(p, w),
                          nax::tuple(p, tw));
  (void)y;
  (void)ty;
  std::vector<nax::Array<double, in>> layers(2, nax::Array<double, in>({3}));
  auto [vy, vt] = nax::jvp([](const auto& ls) { return nax::sum(ls[0] * ls[1]); }, nax::tuple(layers), nax::tuple(layers));
  (void)vt;
}
