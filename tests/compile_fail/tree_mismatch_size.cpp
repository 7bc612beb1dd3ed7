// expect: nax: tree_map: the trees have different structures
// expect: std::tuple<nax::Array<float, in>, nax::Array<float, in>, nax::Array<float, in> ?>
// tree_map over tuples of different sizes.
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

NAX_AXIS(in);

int main() {
  auto x = nax::ones<float, in>(3);
  std::tuple<nax::Array<float, in>, nax::Array<float, in>> two{x, x};
  std::tuple<nax::Array<float, in>, nax::Array<float, in>, nax::Array<float, in>> three{x, x, x};
  nax::tree_map([](auto a, auto b) { return a + b; }, two, three);
}
