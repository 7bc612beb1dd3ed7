// Device evaluation of the collective nodes (expr/collective.hpp), as collective_host.hpp does
// on the host: the local value is evaluated into device memory, then the mesh axis's
// communicator combines it (all-reduce) or concatenates it along the mapped axis
// (all-gather); NCCL reads the device buffers in place, host communicators (an emulated mesh,
// MPI) through host copies. With no communicator (the axis is vectorised, vmap) the local
// value is the result. Permute (ppermute over a vectorised axis) is one kernel per member.
// Mesh layer: above the CUDA backend.
#pragma once
#include <memory>

#include "../backend/cuda/assign.hpp"
#include "../backend/cuda/host_staging.hpp"
#include "collective_host.hpp"

namespace nax::cuda::detail {

template <class C, class Kind, class Axis>
auto materialise_node(const nax::detail::CommCollective<C, Kind, Axis>& node, context& ctx) {
  using Node = nax::detail::CommCollective<C, Kind, Axis>;
  using T = typename Node::value_type;
  using NA = typename Node::axes_type;
  if (!node.comm) return materialise_any(node.child, ctx).as_leaf();
  device_guard guard(ctx.device);
  if constexpr (std::is_same_v<Kind, nax::detail::all_gather_kind>) {
    // Members' parts concatenate along Axis when Axis is the outermost axis of the layout.
    using Layout = nax::detail::concat_t<axes<Axis>, nax::detail::difference_t<NA, axes<Axis>>>;
    using Temporary = device_array_for_t<T, Layout>;
    Temporary local(Temporary::uninitialized, nax::detail::extents_by_name<Layout>(node.child));
    assign_in_context(mutable_host_view(local), node.child, ctx);
    auto everyone = std::make_shared<Temporary>(Temporary::uninitialized, nax::detail::extents_by_name<Layout>(node));
    all_gather_device_buffer(*node.comm, std::as_const(local).data(), everyone->data(), local.size(), ctx.device);
    const auto layout_strides = everyone->strides();
    std::array<index_t, NA::size> strides{};
    [&]<class... As>(axes<As...>) { strides = {layout_strides[nax::detail::index_of_v<As, Layout>]...}; }(NA{});
    return nax::detail::leaf_for_t<Node>{{}, {std::as_const(*everyone).data(), node.extents(), strides}, everyone};
  } else {
    using Result = device_array_for_t<T, NA>;
    auto combined = std::make_shared<Result>(Result::uninitialized, node.extents());
    assign_in_context(mutable_host_view(*combined), node.child, ctx);
    all_reduce_device_buffer(*node.comm, combined->data(), combined->size(), ctx.device,
                             nax::detail::reduce_op_of<typename Kind::op>());
    return leaf_of(std::as_const(*combined).view(), combined).as_leaf();
  }
}

template <class C, class Axis>
auto materialise_node(const nax::detail::Permute<C, Axis>& node, context& ctx) {
  using T = typename C::value_type;
  auto source = materialise_any(node.child, ctx);
  device_guard guard(ctx.device);
  auto out = std::make_shared<device_array_for_t<T, typename C::axes_type>>(node.extents());  // zero-filled
  auto whole = mutable_host_view(*out);
  for (index_t d = 0; d < static_cast<index_t>(node.source.size()); ++d) {
    if (node.source[d] < 0) continue;  // non-destinations receive zeros
    auto part = source;
    part.view = nax::detail::host::narrow<Axis>(source.view, node.source[d], 1);
    assign_in_context(nax::detail::host::narrow<Axis>(whole, d, 1), part, ctx);
  }
  return leaf_of(std::as_const(*out).view(), out).as_leaf();
}

}  // namespace nax::cuda::detail
