// expect-compile
// The control of the two cuda_*operand* snippets: the same expressions with one memory space.
#include <nax/cuda.hpp>

NAX_AXIS(i);
NAX_AXIS(j);

void f() {
  nax::Array<float, i, j> host({3, 2});
  nax::cuda::Array<float, j> device({2});
  nax::cuda::Array<float, i> y = nax::sum<j>(nax::cuda::to_device(host) * device) + nax::exp(nax::cuda::to_device(nax::sum<j>(host)));
  nax::Array<float, i> z = nax::sum<j>(host * nax::cuda::to_host(device));
}
