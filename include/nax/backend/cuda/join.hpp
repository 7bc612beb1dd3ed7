// Merge, concatenate and stack on the device: the host's algorithms (backend/host/join.hpp,
// written once for every backend) with device temporaries; each operand is one kernel
// writing its part, and a merge of a device array whose strides allow it reads it in place.
#pragma once
#include <memory>
#include <utility>

#include "../host/join.hpp"
#include "assign.hpp"

namespace nax::cuda::detail {

// A temporary device array for a node's result: the view kernels write, the leaf reading it.
template <class T, class Axes>
auto make_temporary(nax::detail::temporary_of<T, Axes>, const std::array<index_t, Axes::size>& extents,
                    context& ctx) {
  device_guard guard(ctx.device);
  auto out = std::make_shared<device_array_for_t<T, Axes>>(device_array_for_t<T, Axes>::uninitialized, extents);
  return std::pair(mutable_host_view(*out), leaf_of(std::as_const(*out).view(), out).as_leaf());
}

template <class Axis, bool IsStack, class... Cs>
auto materialise_node(const nax::detail::Join<Axis, IsStack, Cs...>& node, context& ctx) {
  return nax::detail::join_into_temporary(node, ctx);
}

template <class C, class Outer, class Inner, class Merged>
auto materialise_node(const nax::detail::Merge<C, Outer, Inner, Merged>& node, context& ctx) {
  if constexpr (is_device_leaf_v<C>) {
    if (auto direct = nax::detail::merged_leaf(node, ctx.here(node.child).as_leaf())) return *direct;
  }
  return nax::detail::merge_through_layout(node, ctx);
}

}  // namespace nax::cuda::detail
