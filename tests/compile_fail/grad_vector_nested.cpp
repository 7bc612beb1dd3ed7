// expect: grad differentiates a std::vector only as a whole argument
// expect: require_vector_on_top<std::tuple<std::vector<nax::Array<float, row>
// A std::vector of layers inside a tuple argument of grad.
#include <nax/nax.hpp>
#include <tuple>
#include <vector>
NAX_AXIS(row);
int main() {
  std::tuple<std::vector<nax::Array<float, row>>, nax::Array<float, row>> p;
  auto g = nax::grad([](const auto& q) { return nax::sum(std::get<1>(q)); })(p);
  (void)g;
}
