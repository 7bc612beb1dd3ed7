// expect: nax: tree_map: the trees have different structures
// expect: std::array<nax::Array<float, in>, 3
// std::arrays of different lengths, nested in a struct.
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

#include <array>

NAX_AXIS(in);

struct Heads {
  BOOST_HANA_DEFINE_STRUCT(Heads, (std::array<nax::Array<float, in>, 2>, heads), (float, scale));
};

int main() {
  Heads heads{{nax::ones<float, in>(3), nax::ones<float, in>(3)}, 1.f};
  std::array<nax::Array<float, in>, 3> three{nax::ones<float, in>(3), nax::ones<float, in>(3), nax::ones<float, in>(3)};
  nax::tree_map([](auto a, auto b) { return a + b; }, std::tie(heads.heads, heads.scale), std::tie(three, heads.scale));
}
