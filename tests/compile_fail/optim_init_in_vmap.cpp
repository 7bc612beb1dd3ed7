// expect: nax: optim: init needs the parameters themselves: call it outside vmap/xmap
// expect: optim/adam\.hpp
// An optimiser's init called inside vmap, on one member's slice of the parameters.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>

NAX_AXIS(batch);
NAX_AXIS(hidden);

int main() {
  nax::Array<float, batch, hidden> w({4, 3});
  auto opt = nax::optim::adam(1e-3);
  auto states = nax::vmap<batch>([&](const auto& row) {
    auto state = opt.init(row);  // init of one member's row, inside the map
    (void)state;
    return row * 2.f;
  })(w);
  (void)states;
}
