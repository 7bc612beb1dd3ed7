// expect: nax: not a pytree
// expect: require_pytree<std::(__cxx11::)?basic_string<char ?>
// A struct member that is neither a leaf nor a node.
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

#include <string>

NAX_AXIS(in);

struct Named {
  BOOST_HANA_DEFINE_STRUCT(Named, (nax::Array<float, in>, w), (std::string, name));
};

int main() {
  Named named{nax::ones<float, in>(3), "layer"};
  nax::tree_map([](auto x) { return x; }, named);
}
