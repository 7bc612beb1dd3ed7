// expect: third and higher derivatives are not supported
// expect: require_second_order_only<nax::detail::ad::differentiated<false,
// A third derivative: grad(grad(f)) is as far as nax goes.
#include <nax/nax.hpp>
int main() {
  auto x = nax::full<double>(0.5);
  auto f = [](const auto& v) { return nax::tanh(v); };
  auto h = nax::grad(nax::grad(nax::grad(f)))(x);
  (void)h;
}
