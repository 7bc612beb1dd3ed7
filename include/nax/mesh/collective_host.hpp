// Host evaluation of CommCollective nodes (expr/collective.hpp): the local value is
// materialised, then the mesh axis's communicator combines it (all-reduce) or concatenates
// it along the mapped axis (all-gather). With no communicator (the axis is vectorised on
// this device) the local value is the result. Mesh layer: above the host backend.
#pragma once
#include <memory>

#include "../backend/host/assign.hpp"
#include "../expr/collective.hpp"
#include "../expr/reduce_ops.hpp"
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

namespace host {

template <class C, class Kind, class Axis>
auto materialise_node(const CommCollective<C, Kind, Axis>& node, context& ctx) {
  using Node = CommCollective<C, Kind, Axis>;
  using T = typename Node::value_type;
  using NA = typename Node::axes_type;
  if (!node.comm) return materialise_any(node.child, ctx);
  if constexpr (std::is_same_v<Kind, all_gather_kind>) {
    // Members' parts concatenate along Axis when Axis is the outermost axis of the layout.
    using Layout = concat_t<axes<Axis>, difference_t<NA, axes<Axis>>>;
    array_for_t<T, Layout> local(extents_by_name<Layout>(node.child));
    assign_in_context(local.view(), node.child, ctx);
    auto everyone = std::make_shared<array_for_t<T, Layout>>(extents_by_name<Layout>(node));
    node.comm->all_gather(local.data(), everyone->data(), local.size());
    auto view = std::as_const(*everyone).view();
    std::array<index_t, NA::size> strides{};
    [&]<class... As>(axes<As...>) { strides = {view.strides()[index_of_v<As, Layout>]...}; }(NA{});
    return leaf_for_t<Node>{{}, {view.data(), node.extents(), strides}, everyone};
  } else {
    auto combined = std::make_shared<array_for_t<T, NA>>(node.extents());
    assign_in_context(combined->view(), node.child, ctx);
    node.comm->all_reduce(combined->data(), combined->size(), reduce_op_of<typename Kind::op>());
    return leaf_of(std::as_const(*combined).view(), combined);
  }
}

}  // namespace host
}  // namespace nax::detail
