// expect: grad<argnums...>: an argument position is listed twice
// expect: require_unique_argnums<0, 0>
// grad<0, 0>: the first argument named twice.
#include <nax/nax.hpp>
NAX_AXIS(row);
int main() {
  nax::Array<float, row> x({2}), y({2});
  auto g = nax::grad<0, 0>([](const auto& a, const auto& b) { return nax::sum(a * b); })(x, y);
  (void)g;
}
