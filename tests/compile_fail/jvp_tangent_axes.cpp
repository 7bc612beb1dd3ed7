// expect: jvp: a tangent's axes \(TangentAxes\) differ from its primal's \(PrimalAxes\)
// expect: require_tangent_axes<nax::axes<in> ?, ?nax::axes<out> ?>
// A tangent with another axis than its primal's.
#include <nax/nax.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  nax::Array<double, in> x({3});
  nax::Array<double, out> t({3});
  auto r = nax::jvp([](const auto& a) { return nax::sum(a); }, nax::tuple(x), nax::tuple(t));
  (void)r;
}
