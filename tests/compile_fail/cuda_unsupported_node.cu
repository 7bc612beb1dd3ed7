// expect: not implemented on the CUDA backend
// expect: nax::cuda::to_host
// A node with a host implementation only (an operation added outside nax: its
// materialise_node takes the host context), read by an expression evaluated on the device.
#include <nax/cuda.hpp>

#include "user_node.hpp"

NAX_AXIS(i);

void f() {
  nax::cuda::Array<float, i> x({4});
  user::Reverse<nax::cuda::detail::DeviceLeaf<float, i>> r{{}, nax::detail::as_expr(x)};
  nax::cuda::Array<float, i> y = r + 1.f;
}
