// expect: nax: tree_cast: Tree has a different number of children from Like at the same place
// tree_cast of a two-element tuple to a struct of three members.
#include <nax/nax.hpp>

NAX_AXIS(a);

struct Three {
  BOOST_HANA_DEFINE_STRUCT(Three, (nax::Array<float, a>, x), (nax::Array<float, a>, y), (nax::Array<float, a>, z));
};

int main() {
  auto two = nax::tuple(nax::zeros<float, a>(2), nax::zeros<float, a>(2));
  auto s = nax::tree_cast<Three>(two);
  (void)s;
}
