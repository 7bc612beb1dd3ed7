// expect: jvp: the number of tangents \(Tangents\) differs from the number of primals \(Primals\)
// expect: require_tangent_count<2, ?1>
// Two primals, one tangent.
#include <nax/nax.hpp>

NAX_AXIS(in);

int main() {
  nax::Array<double, in> x({3});
  auto r = nax::jvp([](const auto& a, const auto& b) { return nax::sum(a * b); }, nax::tuple(x, x), nax::tuple(x));
  (void)r;
}
