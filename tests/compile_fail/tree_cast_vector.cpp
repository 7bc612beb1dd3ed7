// expect: nax: tree_cast: Like has a std::vector where Tree has none
// tree_cast to a std::vector of arrays from a std::array of them.

#include <nax/nax.hpp>
#include <array>
#include <vector>

NAX_AXIS(a);

int main() {
  std::array<nax::Array<float, a>, 2> fixed{nax::zeros<float, a>(2), nax::zeros<float, a>(2)};
  auto v = nax::tree_cast<std::vector<nax::Array<float, a>>>(fixed);
  (void)v;
}
