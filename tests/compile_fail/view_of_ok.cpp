// expect-compile
// The control of view_of_rank: one name per index.
#include <nax/nax.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

struct strided {
  float* p;
  static constexpr std::size_t rank() { return 2; }
  float* data_handle() const { return p; }
  std::size_t extent(std::size_t) const { return 2; }
  std::size_t stride(std::size_t k) const { return k ? 1 : 2; }
};

int main() {
  float memory[4] = {};
  auto v = nax::view_of<in, out>(strided{memory});
  float s = nax::sum(v).item();
  (void)s;
}
