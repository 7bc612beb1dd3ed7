// Nodes that exchange data between the members of a mapped axis. CommCollective wraps a
// value that a mesh axis's communicator combines (all-reduce) or concatenates (all-gather
// along Axis) across devices; with no communicator (the axis is vectorised on this
// device) it is its child unchanged. Permute reorders a mapped axis (ppermute): member d
// gets member src[d]'s value, or zeros. Both are materialised once per evaluation.
#pragma once
#include <vector>

#include "node.hpp"

namespace nax::detail {

class communicator;  // mesh/communicator.hpp

template <class Op>
struct all_reduce_kind {
  using op = Op;
};
struct all_gather_kind {};

template <class C, class Kind, class Axis>
struct CommCollective : node_interface<CommCollective<C, Kind, Axis>> {
  using child_type = C;
  using kind = Kind;
  using gathered_axis = Axis;
  using axes_type = typename C::axes_type;
  using value_type = typename C::value_type;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  communicator* comm = nullptr;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  CommCollective(C c, communicator* comm_, index_t global_extent) : child(std::move(c)), comm(comm_) {
    extents_ = child.extents();
    if constexpr (std::is_same_v<Kind, all_gather_kind>) extents_[index_of_v<Axis, axes_type>] = global_extent;
    (void)global_extent;
  }
  const std::array<index_t, rank>& extents() const { return extents_; }
};

template <class C, class Axis>
struct Permute : node_interface<Permute<C, Axis>> {
  using child_type = C;
  using permuted_axis = Axis;
  using axes_type = typename C::axes_type;
  using value_type = typename C::value_type;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  std::vector<index_t> source;  // source[d] = the member whose value d receives, or -1
  std::uint64_t id = next_node_id();

  const std::array<index_t, rank>& extents() const { return child.extents(); }
};

}  // namespace nax::detail
