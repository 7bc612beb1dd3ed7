// expect: the inner grad must differentiate one argument
#include <nax/nax.hpp>
int main() {
  auto x = nax::full<double>(0.5), y = nax::full<double>(1.5);
  auto f = [](const auto& a, const auto& b) { return nax::tanh(a * b); };
  auto h = nax::grad(nax::grad<0, 1>(f))(x, y);  // the inner gradient is a pair, not a scalar
  (void)h;
}
