// expect: nax::io::load_tree fills the leaves of a tree of nax::Arrays, GlobalArrays and numbers; Leaf is none
// expect: require_loadable_leaf<nax::ArrayView<float, in> ?>
// A view cannot take a loaded array's extents and storage.
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(in);

int main() {
  nax::Array<float, in> x({3});
  auto tree = std::make_tuple(x.view());
  nax::io::load_tree_into("t.npz", tree);
}
