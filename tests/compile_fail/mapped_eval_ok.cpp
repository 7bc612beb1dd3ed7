// expect-compile
// The control of mapped_value_stored and map_unbound_collective: inside vmap, nax::eval of a
// value that varies over the mapped axis, and of a collective's result, gives evaluated mapped
// values that the function goes on using (DESIGN 5b), with the tape compiled out too.
#define NAX_NO_TAPE
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  auto f = [](const auto& row) {
    auto doubled = nax::eval(row * 2.f);             // varies over batch
    auto total = nax::eval(nax::psum<batch>(doubled));  // a collective's result, not resolved yet
    return nax::eval(doubled - total);
  };
  nax::Array<float, batch, in> y = nax::vmap<batch>(f)(x);
  (void)y;
}
