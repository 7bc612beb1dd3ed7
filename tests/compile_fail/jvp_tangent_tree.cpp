// expect: jvp: a tangent has another number of leaves \(TangentLeaves\) than its primal \(PrimalLeaves\)
// expect: require_tangent_tree<2, ?1>
// A primal of two arrays (a std::array) given one array as its tangent.
#include <nax/nax.hpp>
#include <array>

NAX_AXIS(in);

int main() {
  std::array<nax::Array<double, in>, 2> p{nax::Array<double, in>({3}), nax::Array<double, in>({3})};
  nax::Array<double, in> t({3});
  auto r = nax::jvp([](const auto& q) { return nax::sum(q[0] * q[1]); }, nax::tuple(p), nax::tuple(t));
  (void)r;
}
