// expect: nax: vmap<N> needs an axis name declared with NAX_AXIS
// vmap over a type that is not an axis name.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(hidden);

int main() {
  auto f = nax::vmap<int>([](const auto& row) { return nax::sum<hidden>(row); });
  (void)f;
}
