// expect-compile
// The control of io_load_tree_leaf: save_tree of any pytree leaves, load_tree into Arrays and numbers.
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(in);

int main() {
  nax::Array<float, in> x({3});
  nax::io::save_tree("t.npz", std::make_tuple(x, x.view(), x * 2.f, 1.5));
  auto tree = nax::io::load_tree("t.npz", std::make_tuple(x, x, x, 0.0));
  (void)tree;
}
