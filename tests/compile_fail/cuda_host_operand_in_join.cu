// expect: mixing host and device operands in one expression
// A host array inside a concatenation evaluated on the device (the check walks joins and
// merges too).
#include <nax/cuda.hpp>

NAX_AXIS(i);
NAX_AXIS(j);

void f() {
  nax::Array<float, i, j> host({2, 3});
  nax::cuda::Array<float, i, j> device({2, 3});
  nax::cuda::Array<float, i, j> y = nax::concatenate<i>(device, host);
}
