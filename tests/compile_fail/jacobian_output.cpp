// expect: jacrev/jacfwd: f must return one array \(Output is what evaluating its result gives\)
// expect: require_array_output<std::tuple<
// jacrev of a function with two outputs.
#include <nax/nax.hpp>

NAX_AXIS(in);

int main() {
  nax::Array<double, in> x({3});
  auto j = nax::jacrev([](const auto& v) { return nax::tuple(nax::eval(nax::sin(v)), nax::eval(nax::cos(v))); })(x);
  (void)j;
}
