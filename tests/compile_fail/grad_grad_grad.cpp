// expect: third and higher derivatives are not supported
#include <nax/nax.hpp>
int main() {
  auto x = nax::full<double>(0.5);
  auto f = [](const auto& v) { return nax::tanh(v); };
  auto h = nax::grad(nax::grad(nax::grad(f)))(x);
  (void)h;
}
