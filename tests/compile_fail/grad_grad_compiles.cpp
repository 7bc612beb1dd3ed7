// expect-compile
// The snippet beside grad_grad_vector.cpp and grad_grad_grad.cpp that must compile.
#include <nax/nax.hpp>
int main() {
  auto x = nax::full<double>(0.5);
  auto f = [](const auto& v) { return nax::tanh(v) * nax::exp(v); };
  auto h = nax::grad(nax::grad(f))(x);
  return h.item() > 100.0 ? 1 : 0;
}
