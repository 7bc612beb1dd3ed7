// Host evaluation of the collective nodes (expr/collective.hpp): the local value is
// materialised, then the mesh axis's communicator combines it (all-reduce), concatenates it
// (all-gather), reduces and scatters it (reduce-scatter), exchanges blocks (all-to-all) or
// sends it to one member (permute), each with the call of its own kind
// (mesh/collective_plan.hpp lays out the buffers). With no communicator (the axis is
// vectorised on this device) every member is local: the same result by local copies or by
// strides alone. Mesh layer: above the host backend.
#pragma once
#include <memory>
#include <utility>

#include "../backend/host/assign.hpp"
#include "../core/view_slicing.hpp"
#include "../expr/collective.hpp"
#include "../expr/reduce_ops.hpp"
#include "collective_plan.hpp"
#include "communicator.hpp"

namespace nax::detail {

template <class Op>
struct require_communicator_op {
  static_assert(std::is_same_v<Op, sum_op> || std::is_same_v<Op, prod_op> || std::is_same_v<Op, max_op> ||
                    std::is_same_v<Op, min_op>,
                "nax: a collective over this reduction (Op) has no communicator operation: give it a reduce_op "
                "(mesh/communicator.hpp, each communicator) and a case in reduce_op_of");
  static constexpr bool value = true;
};

// The communicators' name for a reduction (a new reduction is a compile error here, never a
// silent min).
template <class Op>
constexpr reduce_op reduce_op_of() {
  static_assert(require_communicator_op<Op>::value);
  if constexpr (std::is_same_v<Op, sum_op>) return reduce_op::sum;
  else if constexpr (std::is_same_v<Op, prod_op>) return reduce_op::prod;
  else if constexpr (std::is_same_v<Op, max_op>) return reduce_op::max;
  else return reduce_op::min;
}

// A node's axes NA laid out with Axis outermost: members' blocks along Axis are contiguous.
template <class NA, class Axis>
using outer_layout_t = concat_t<axes<Axis>, difference_t<NA, axes<Axis>>>;

namespace host {

template <class C, class Kind, class Axis>
auto materialise_node(const CommCollective<C, Kind, Axis>& node, context& ctx) {
  using Node = CommCollective<C, Kind, Axis>;
  using T = typename Node::value_type;
  using NA = typename Node::axes_type;
  if (!node.comm) return materialise_any(node.child, ctx);
  if constexpr (resizes_axis_v<Kind>) {
    using Layout = outer_layout_t<NA, Axis>;
    array_for_t<T, Layout> local(no_fill, extents_by_name<Layout>(node.child));
    assign_in_context(local.view(), node.child, ctx);
    auto result = std::make_shared<array_for_t<T, Layout>>(no_fill, extents_by_name<Layout>(node));
    if constexpr (std::is_same_v<Kind, all_gather_kind>)
      node.comm->all_gather(local.data(), result->data(), local.size());
    else
      node.comm->reduce_scatter(local.data(), result->data(), result->size(), reduce_op_of<typename Kind::op>());
    const T* data = result->data();
    return leaf_for_t<Node>{{}, {data, node.extents(), strides_by_name<NA, Layout>(result->strides())}, result};
  } else {
    auto combined = std::make_shared<array_for_t<T, NA>>(no_fill, node.extents());
    assign_in_context(combined->view(), node.child, ctx);
    node.comm->all_reduce(combined->data(), combined->size(), reduce_op_of<typename Kind::op>());
    return leaf_of(std::as_const(*combined).view(), combined);
  }
}

// Each member's part along the permuted axis is its source member's, or zeros.
template <class C, class Axis>
auto materialise_node(const Permute<C, Axis>& node, context& ctx) {
  using T = typename C::value_type;
  using CA = typename C::axes_type;
  if (!node.comm) {  // every member is here: one fused copy per destination
    auto source = materialise_any(node.child, ctx);
    auto out = std::make_shared<array_for_t<T, CA>>(node.extents());
    auto whole = out->view();
    for (index_t d = 0; d < static_cast<index_t>(node.source.size()); ++d) {
      if (node.source[d] < 0) continue;  // out is zero-filled: non-destinations receive zeros
      assign_in_context(narrow<Axis>(whole, d, 1), leaf_of(narrow<Axis>(source.view, node.source[d], 1)), ctx);
    }
    return leaf_of(std::as_const(*out).view(), out);
  } else {
    using Layout = outer_layout_t<CA, Axis>;
    array_for_t<T, Layout> local(no_fill, extents_by_name<Layout>(node.child));
    assign_in_context(local.view(), node.child, ctx);
    auto out = std::make_shared<array_for_t<T, Layout>>(extents_by_name<Layout>(node.child));  // zeros
    const index_t here = extent_of<Axis>(node.child);
    require_members_tile_group("ppermute", static_cast<index_t>(node.source.size()), here, node.comm->size());
    const index_t member = here > 0 ? local.size() / here : 0;
    std::unique_ptr<T[]> spare;  // a round's receive buffer on a device that receives nothing in it
    const int me = node.comm->rank();
    for (const permute_round& round : permute_rounds(node.source, here)) {
      T* receive = out->data() + round.receive_position * member;
      if (!receives_in(round, me)) {
        if (!spare) spare.reset(new T[static_cast<std::size_t>(member > 0 ? member : 1)]);
        receive = spare.get();
      }
      node.comm->permute(local.data() + round.send_position * member, receive, member, round.pairs);
    }
    const T* data = out->data();
    return leaf_for_t<Permute<C, Axis>>{{}, {data, node.extents(), strides_by_name<CA, Layout>(out->strides())}, out};
  }
}

template <class C, class N, class Split, class Concat>
auto materialise_node(const AllToAll<C, N, Split, Concat>& node, context& ctx) {
  using Node = AllToAll<C, N, Split, Concat>;
  using T = typename Node::value_type;
  using CA = typename C::axes_type;
  if (!node.comm) {  // every member is here: N and Split trade strides
    auto source = materialise_any(node.child, ctx);
    auto strides = source.view.strides();
    std::swap(strides[index_of_v<N, CA>], strides[index_of_v<Split, CA>]);
    return leaf_for_t<Node>{{}, {source.view.data(), node.extents(), strides}, source.owner};
  } else {
    auto source = materialise_any(node.child, ctx);
    const all_to_all_layout<CA, N, Split> layout(node.child.extents());
    const index_t here = layout.members_here, block = layout.block();
    const index_t devices = here > 0 ? extent_of<Split>(node.child) / here : 0;
    require_members_tile_group("all_to_all", extent_of<Split>(node.child), here, node.comm->size());
    const auto elements = static_cast<std::size_t>(block * devices > 0 ? block * devices : 1);
    std::unique_ptr<T[]> send(new T[elements]);
    for (index_t e = 0; e < devices; ++e) {  // peer e's blocks, contiguous
      auto part = narrow<Split>(source.view, e * here, here);
      view_for_t<T, CA> into(send.get() + e * block, part.extents(), layout.send_strides);
      assign_in_context(into, leaf_of(part), ctx);
    }
    std::shared_ptr<T[]> received(new T[elements]);
    node.comm->all_to_all(send.get(), received.get(), block);
    const T* data = received.get();
    return leaf_for_t<Node>{{}, {data, node.extents(), layout.receive_strides}, received};
  }
}

}  // namespace host
}  // namespace nax::detail
