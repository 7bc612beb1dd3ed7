// expect: not implemented on the CUDA backend yet
// expect: nax::cuda::to_host
// An operation the device cannot compute yet (ppermute inside vmap, over device arrays).
#include <nax/cuda.hpp>

NAX_AXIS(i);
NAX_AXIS(j);

void f() {
  nax::cuda::Array<float, i, j> x({4, 3});
  nax::cuda::Array<float, i, j> y =
      nax::vmap<i>([](const auto& row) { return nax::ppermute<i>(row, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}); })(x);
}
