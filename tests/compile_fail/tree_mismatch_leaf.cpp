// expect: nax: tree_map: the trees have different structures
// expect: Layer, (Right=)?nax::Array<float, out>
// A leaf where the other tree has a node: the second elements are a struct and an array.
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<float, in, out>, w), (nax::Array<float, out>, b));
};

int main() {
  std::tuple<nax::Array<float, in>, Layer> params{nax::ones<float, in>(3),
                                                  Layer{nax::ones<float, in, out>(3, 2), nax::ones<float, out>(2)}};
  std::tuple<nax::Array<float, in>, nax::Array<float, out>> grads{nax::ones<float, in>(3), nax::ones<float, out>(2)};
  nax::tree_map([](auto p, auto g) { return p - g; }, params, grads);
}
