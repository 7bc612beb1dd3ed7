// expect: custom_vjp: bwd returns another number of cotangents \(Returned\) than the function has arguments \(Arguments\)
// expect: require_custom_cotangent_count<1, ?2>
// A custom backward pass of a function of two arguments that returns one cotangent.
#include <nax/nax.hpp>

NAX_AXIS(in);

int main() {
  auto f = nax::custom_vjp([](const auto& a, const auto& b) { return std::pair(nax::sum(a * b), 0); },
                           [](int, const auto& ct) { return ct; });
  nax::Array<double, in> x({3});
  auto g = nax::grad([&](const auto& v) { return f(v, v); })(x);
  (void)g;
}
