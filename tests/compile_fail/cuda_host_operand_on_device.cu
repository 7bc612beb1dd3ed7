// expect: mixing host and device operands in one expression
// expect: nax::cuda::to_device
// A host array read by an expression that is evaluated on the device (compiled by nvcc:
// registered by tests/cuda/CMakeLists.txt).
#include <nax/cuda.hpp>

NAX_AXIS(i);

void f() {
  nax::Array<float, i> host({3});
  nax::cuda::Array<float, i> device({3});
  nax::cuda::Array<float, i> y = nax::exp(device) + host;
}
