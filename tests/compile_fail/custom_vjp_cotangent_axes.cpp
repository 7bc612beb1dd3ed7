// expect: custom_vjp: bwd returns a cotangent with axes \(CotangentAxes\) other than its argument's \(ArgAxes\)
// expect: require_custom_cotangent_axes<nax::axes<in> ?, ?nax::axes<out> ?>
// A custom backward pass that returns a cotangent with another axis than its argument's.
#include <nax/nax.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  auto f = nax::custom_vjp([](const auto& x) { return std::pair(nax::sum(x), 0); },
                           [](int, const auto&) { return nax::zeros<double, out>(3); });
  nax::Array<double, in> x({3});
  auto g = nax::grad([&](const auto& v) { return f(v); })(x);
  (void)g;
}
