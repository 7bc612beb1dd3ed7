// expect-compile
// Control for tree_cast_node_size and tree_cast_vector: a tuple of the struct's size, and a
// std::vector of tuples, cast back to the declared types.

#include <nax/nax.hpp>
#include <vector>

NAX_AXIS(a);

struct Two {
  BOOST_HANA_DEFINE_STRUCT(Two, (nax::Array<float, a>, x), (nax::Array<double, a>, y));
};

int main() {
  auto two = nax::tuple(nax::zeros<float, a>(2), nax::zeros<double, a>(2));
  Two s = nax::tree_cast<Two>(two);
  std::vector<decltype(two)> many{two, two};
  std::vector<Two> structs = nax::tree_cast<std::vector<Two>>(many);
  (void)s;
  (void)structs;
}
