// expect: mixing host and device operands in one expression
// expect: nax::cuda::to_host
// A device array read by an expression that is evaluated on the host.
#include <nax/cuda.hpp>

NAX_AXIS(i);
NAX_AXIS(j);

void f() {
  nax::Array<float, i, j> host({3, 2});
  nax::cuda::Array<float, j> device({2});
  nax::Array<float, i> y = nax::sum<j>(host * device);
}
