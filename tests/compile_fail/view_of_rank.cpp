// expect: nax: view_of<Axes\.\.\.>\(m\): give one axis name per index of m; m has Rank indices
// expect: require_foreign_rank<2, nax::axes<in> >
// A rank-2 mdspan-like view given one axis name.
#include <nax/nax.hpp>

NAX_AXIS(in);

struct strided {
  float* p;
  static constexpr std::size_t rank() { return 2; }
  float* data_handle() const { return p; }
  std::size_t extent(std::size_t) const { return 2; }
  std::size_t stride(std::size_t k) const { return k ? 1 : 2; }
};

int main() {
  float memory[4] = {};
  auto v = nax::view_of<in>(strided{memory});
  (void)v;
}
