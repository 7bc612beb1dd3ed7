// expect: nax: tree_map: the trees have different structures
// expect: Params, (Right=)?Other
// tree_map over two different struct types, even with leaves of the same types.
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (nax::Array<float, in, out>, w), (nax::Array<float, out>, b));
};
struct Other {
  BOOST_HANA_DEFINE_STRUCT(Other, (nax::Array<float, in, out>, w), (nax::Array<float, out>, b));
};

int main() {
  Params params{nax::ones<float, in, out>(3, 2), nax::ones<float, out>(2)};
  Other grads{nax::ones<float, in, out>(3, 2), nax::ones<float, out>(2)};
  nax::tree_map([](auto p, auto g) { return p - 0.01f * g; }, params, grads);
}
