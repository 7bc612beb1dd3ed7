// expect: vjp: a cotangent's axes \(CotangentAxes\) differ from its output's \(OutputAxes\)
// expect: require_cotangent_axes<nax::axes<out> ?, ?nax::axes<in> ?>
// A pullback given a cotangent with another axis than its output's.
#include <nax/nax.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  nax::Array<double, in> x({3});
  nax::Array<double, in, out> w({3, 2});
  auto [y, pullback] = nax::vjp([](const auto& a, const auto& b) { return nax::dot<in>(a, b); })(x, w);
  auto g = pullback(x);  // x has axis in; the output y has axis out
  (void)g;
}
