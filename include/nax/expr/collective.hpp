// Nodes that exchange data between the members of a mapped axis, each materialised once per
// evaluation by the backend (mesh/collective_host.hpp, mesh/collective_cuda.hpp), which calls
// the mesh axis's communicator; with no communicator (the axis is vectorised on this device:
// vmap, or xmap without a mesh axis) every member is here and the node is local work.
// - CommCollective<C, all_reduce_kind<Op>, N>: C (already reduced over its local members)
//   combined across devices (psum, pmax, pmin).
// - CommCollective<C, all_gather_kind, A>: C's parts along A concatenated across devices, in
//   device order (A is a mapped axis for all_gather, a visible one for reduce_scatter's
//   transpose).
// - CommCollective<C, reduce_scatter_kind<Op>, A>: C summed across devices, each keeping its
//   block of the visible axis A (psum_scatter).
// - Permute<C, N>: member d gets member source[d]'s value, or zeros (ppermute).
// - AllToAll<C, N, Split, Concat>: member i's block j of Split goes to member j, at index i
//   of Concat, which takes Split's place (all_to_all).
// Each moves only what its result needs: one communicator call of its own kind, never an
// all-gather of everything followed by a local pick.
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
template <class Op>
struct reduce_scatter_kind {
  using op = Op;
};

template <class Kind>
inline constexpr bool resizes_axis_v = std::is_same_v<Kind, all_gather_kind>;
template <class Op>
inline constexpr bool resizes_axis_v<reduce_scatter_kind<Op>> = true;

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
  // Where this member's block of Axis lies in the whole axis (all_gather: its part of the
  // result; reduce_scatter: the block it keeps). 0 without a communicator.
  index_t offset = 0;
  std::array<index_t, rank> extents_{};
  std::uint64_t id = next_node_id();

  // axis_extent: the result's extent along Axis (the whole axis for all_gather, this member's
  // block for reduce_scatter; unused by an all-reduce).
  CommCollective(C c, communicator* comm_, index_t axis_extent, index_t offset_ = 0)
      : child(std::move(c)), comm(comm_), offset(comm_ ? offset_ : 0) {
    extents_ = child.extents();
    if constexpr (resizes_axis_v<Kind>) extents_[index_of_v<Axis, axes_type>] = axis_extent;
    (void)axis_extent;
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
  std::vector<index_t> source;   // over every member: source[d] = the member whose value d receives, or -1
  communicator* comm = nullptr;  // null: every member is in child (its Axis has source.size() of them)
  index_t offset = 0;            // the first member this device holds (with comm)
  std::uint64_t id = next_node_id();

  const std::array<index_t, rank>& extents() const { return child.extents(); }
};

template <class C, class N, class Split, class Concat>
struct AllToAll : node_interface<AllToAll<C, N, Split, Concat>> {
  using child_type = C;
  using member_axis = N;
  using split_axis = Split;
  using concat_axis = Concat;
  using axes_type = replace_t<typename C::axes_type, Split, Concat>;
  using value_type = typename C::value_type;
  using hidden_type = hidden_t<C>;
  using unbound_type = unbound_t<C>;
  static constexpr std::size_t rank = axes_type::size;

  C child;
  communicator* comm = nullptr;
  std::uint64_t id = next_node_id();

  // Concat has Split's extent (the number of members) and N keeps its local extent.
  const std::array<index_t, rank>& extents() const { return child.extents(); }
};

}  // namespace nax::detail
