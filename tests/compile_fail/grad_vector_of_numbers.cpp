// expect: grad differentiates a std::vector whose elements are pytrees of arrays
// expect: require_vector_of_arrays<std::vector<double
// A std::vector of numbers as the differentiated argument.
#include <nax/nax.hpp>
#include <vector>
NAX_AXIS(row);
int main() {
  std::vector<double> scales{1.0, 2.0};
  nax::Array<double, row> x({2});
  auto g = nax::grad([&](const auto& s) { return nax::sum(x * s[0]); })(scales);
  (void)g;
}
