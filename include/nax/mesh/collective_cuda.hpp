// Device evaluation of the collective nodes (expr/collective.hpp), as collective_host.hpp does
// on the host: the local value is evaluated into device memory, then the mesh axis's
// communicator combines it (all-reduce) or concatenates it along the mapped axis
// (all-gather); NCCL reads the device buffers in place, host communicators (an emulated mesh,
// MPI) through host copies. With no communicator (the axis is vectorised, vmap) the local
// value is the result. Permute and AllToAll over a mesh axis move per-peer blocks
// (mesh/collective_plan.hpp); over a vectorised axis they are kernels and strides.
// Mesh layer: above the CUDA backend.
#pragma once
#include <memory>
#include <optional>
#include <utility>

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
  if constexpr (nax::detail::resizes_axis_v<Kind>) {
    using Layout = nax::detail::outer_layout_t<NA, Axis>;
    using Temporary = device_array_for_t<T, Layout>;
    Temporary local(Temporary::uninitialized, nax::detail::extents_by_name<Layout>(node.child));
    assign_in_context(mutable_host_view(local), node.child, ctx);
    auto result = std::make_shared<Temporary>(Temporary::uninitialized, nax::detail::extents_by_name<Layout>(node));
    if constexpr (std::is_same_v<Kind, nax::detail::all_gather_kind>)
      all_gather_device_buffer(*node.comm, std::as_const(local).data(), result->data(), local.size(), ctx.device);
    else
      reduce_scatter_device_buffer(*node.comm, std::as_const(local).data(), result->data(), result->size(), ctx.device,
                                   nax::detail::reduce_op_of<typename Kind::op>());
    return nax::detail::leaf_for_t<Node>{
        {}, {std::as_const(*result).data(), node.extents(), nax::detail::strides_by_name<NA, Layout>(result->strides())},
        result};
  } else {
    using Result = device_array_for_t<T, NA>;
    auto combined = std::make_shared<Result>(Result::uninitialized, node.extents());
    assign_in_context(mutable_host_view(*combined), node.child, ctx);
    all_reduce_device_buffer(*node.comm, combined->data(), combined->size(), ctx.device,
                             nax::detail::reduce_op_of<typename Kind::op>());
    return leaf_of(std::as_const(*combined).view(), combined).as_leaf();
  }
}

// ppermute: with every member here one kernel per destination; over a mesh axis one
// communicator permute per round (mesh/collective_plan.hpp), as on the host.
template <class C, class Axis>
auto materialise_node(const nax::detail::Permute<C, Axis>& node, context& ctx) {
  using T = typename C::value_type;
  using CA = typename C::axes_type;
  device_guard guard(ctx.device);
  if (!node.comm) {
    auto source = materialise_any(node.child, ctx);
    auto out = std::make_shared<device_array_for_t<T, CA>>(node.extents());  // zero-filled
    auto whole = mutable_host_view(*out);
    for (index_t d = 0; d < static_cast<index_t>(node.source.size()); ++d) {
      if (node.source[d] < 0) continue;  // non-destinations receive zeros
      auto part = source;
      part.view = nax::detail::narrow<Axis>(source.view, node.source[d], 1);
      assign_in_context(nax::detail::narrow<Axis>(whole, d, 1), part, ctx);
    }
    return leaf_of(std::as_const(*out).view(), out).as_leaf();
  } else {
    using Layout = nax::detail::outer_layout_t<CA, Axis>;
    using Temporary = device_array_for_t<T, Layout>;
    Temporary local(Temporary::uninitialized, nax::detail::extents_by_name<Layout>(node.child));
    assign_in_context(mutable_host_view(local), node.child, ctx);
    auto out = std::make_shared<Temporary>(nax::detail::extents_by_name<Layout>(node.child));  // zero-filled
    const index_t here = nax::detail::extent_of<Axis>(node.child);
    nax::detail::require_members_tile_group("ppermute", static_cast<index_t>(node.source.size()), here, node.comm->size());
    const index_t member = here > 0 ? local.size() / here : 0;
    std::optional<device_array_for_t<T, axes<Axis>>> spare;  // for rounds this device receives nothing in
    const int me = node.comm->rank();
    const T* send = std::as_const(local).data();
    for (const nax::detail::permute_round& round : nax::detail::permute_rounds(node.source, here)) {
      T* receive = out->data() + round.receive_position * member;
      if (!nax::detail::receives_in(round, me)) {
        if (!spare) spare.emplace(device_array_for_t<T, axes<Axis>>::uninitialized, std::array<index_t, 1>{member});
        receive = spare->data();
      }
      permute_device_buffer(*node.comm, send + round.send_position * member, receive, member, ctx.device, round.pairs);
    }
    return nax::detail::leaf_for_t<nax::detail::Permute<C, Axis>>{
        {}, {std::as_const(*out).data(), node.extents(), nax::detail::strides_by_name<CA, Layout>(out->strides())}, out};
  }
}

// all_to_all: with every member here N and Split trade strides; over a mesh axis one
// communicator all-to-all of per-peer blocks (mesh/collective_plan.hpp), as on the host.
template <class C, class N, class Split, class Concat>
auto materialise_node(const nax::detail::AllToAll<C, N, Split, Concat>& node, context& ctx) {
  using Node = nax::detail::AllToAll<C, N, Split, Concat>;
  using T = typename Node::value_type;
  using CA = typename C::axes_type;
  auto source = materialise_any(node.child, ctx);
  if (!node.comm) {
    auto strides = source.view.strides();
    std::swap(strides[nax::detail::index_of_v<N, CA>], strides[nax::detail::index_of_v<Split, CA>]);
    return nax::detail::leaf_for_t<Node>{{}, {source.view.data(), node.extents(), strides}, source.owner};
  } else {
    device_guard guard(ctx.device);
    using Temporary = device_array_for_t<T, CA>;  // as many elements as the child: G * L * R
    const nax::detail::all_to_all_layout<CA, N, Split> layout(node.child.extents());
    const index_t here = layout.members_here, block = layout.block();
    const index_t devices = here > 0 ? nax::detail::extent_of<Split>(node.child) / here : 0;
    nax::detail::require_members_tile_group("all_to_all", nax::detail::extent_of<Split>(node.child), here, node.comm->size());
    Temporary send(Temporary::uninitialized, node.child.extents());
    for (index_t e = 0; e < devices; ++e) {  // peer e's blocks, contiguous
      auto part = source;
      part.view = nax::detail::narrow<Split>(source.view, e * here, here);
      nax::detail::view_for_t<T, CA> into(send.data() + e * block, part.view.extents(), layout.send_strides);
      assign_in_context(into, part, ctx);
    }
    auto received = std::make_shared<Temporary>(Temporary::uninitialized, node.child.extents());
    all_to_all_device_buffer(*node.comm, std::as_const(send).data(), received->data(), block, ctx.device);
    return nax::detail::leaf_for_t<Node>{{}, {std::as_const(*received).data(), node.extents(), layout.receive_strides},
                                         received};
  }
}

}  // namespace nax::cuda::detail
