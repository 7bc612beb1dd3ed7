// expect: must be one array, not a pytree of several
#include <nax/nax.hpp>
#include <tuple>
int main() {
  auto p = std::make_tuple(nax::full<double>(0.5), nax::full<double>(1.5));
  auto f = [](const auto& q) { return nax::tanh(std::get<0>(q) * std::get<1>(q)); };
  auto h = nax::grad(nax::grad(f))(p);  // the inner gradient is a tuple, not a scalar
  (void)h;
}
