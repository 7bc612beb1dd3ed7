// expect: no argument has axis N to map over and no map_size is given
// expect: require_something_to_map<batch, false, false>
// vmap over batch, but no argument has an axis batch, and no map_size says how many members.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);

int main() {
  nax::Array<float, in> x({3});
  auto y = nax::vmap<batch>([](const auto& v) { return v * 2.f; })(x);
  (void)y;
}
