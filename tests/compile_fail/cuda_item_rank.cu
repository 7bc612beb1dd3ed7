// expect: item\(\) needs a rank-0 expression: reduce the remaining Axes first
// item() of a device array that still has axes (compiled by nvcc: registered by
// tests/cuda/CMakeLists.txt). The control is cuda_joins_ok.cu's rank-0 item().
#include <nax/cuda.hpp>

NAX_AXIS(i);

float f() {
  nax::cuda::Array<float, i> device({3});
  return device.item();
}
