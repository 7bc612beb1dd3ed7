// expect-compile
// The control of cuda_host_operand_in_join and cuda_unsupported_node: joins, merges and
// argmax of device arrays, item() of a rank-0 device array (control of cuda_item_rank),
// collectives inside vmap over device arrays, and a host-only user node evaluated on the host.
#include <nax/cuda.hpp>

#include "user_node.hpp"

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(ij);

void f() {
  nax::cuda::Array<float, i, j> a({2, 3}), b({2, 3});
  nax::cuda::Array<float, i, j> y = nax::concatenate<i>(a, b * 2.f);
  nax::cuda::Array<float, ij> m = nax::merge<i, j, ij>(y);
  nax::cuda::Array<std::int32_t, i> k = nax::argmax<j>(a);
  nax::cuda::Array<float> total = nax::sum(m);
  float t = total.item();
  (void)t;
  nax::cuda::Array<float, i, j> x({4, 3});
  nax::cuda::Array<float, i, j> p = nax::vmap<i>([](const auto& row) {
    return nax::ppermute<i>(row, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}) + nax::psum<i>(row);
  })(x);
  nax::Array<float, i> h({4});
  user::Reverse<nax::detail::Leaf<float, i>> r{{}, nax::detail::as_expr(h)};
  nax::Array<float, i> back = r + 1.f;
}
