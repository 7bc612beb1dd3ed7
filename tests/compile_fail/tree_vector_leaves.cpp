// expect: a std::vector in a pytree has a run-time number of leaves
// expect: require_static_tree<std::vector<nax::Array<float, row> ?>
// tree_leaves of a std::vector: its leaf count is not known at compile time.
#include <nax/nax.hpp>
#include <vector>
NAX_AXIS(row);
int main() {
  std::vector<nax::Array<float, row>> layers(2);
  auto leaves = nax::tree_leaves(layers);
  (void)leaves;
}
