// Reverse-mode rules of the collectives' nodes (expr/collective.hpp), as JAX transposes them.
// Included by rules.hpp before backprop's definition. The collectives of transform/ are
// compositions of these nodes and of relayouts, so their adjoints follow:
// - psum's all-reduce: ct passes to the local sum below it (a replicated value's cotangent
//   is the same on every member; the sum's rule broadcasts it back);
// - all_gather (a mapped axis made complete on every member): this member's part of ct.
//   Together with the rename that follows it in all_gather (whose rule first psums a ct that
//   varies per member, see rules.hpp), all_gather's transpose is psum_scatter, tiled or not;
// - psum_scatter of a value that does not vary over the axis is psum then this member's part:
//   the part's rule (rules.hpp: scatter) puts ct back in place and sums the members' pieces;
// - psum_scatter's reduce-scatter: this device's block of ct, all-gathered (its transpose is
//   all_gather, over the same communicator), then the local sum's rule;
// - Permute (ppermute): ct permuted back with the inverse permutation; members that sent
//   nothing get zeros;
// - AllToAll: all_to_all with the split and concat axes swapped;
// - pmax/pmin: no rule, as in JAX (jax.lax.pmax/pmin define no JVP or transpose).
#pragma once
#include <string>
#include <vector>

#include "cotangent.hpp"

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st);

template <class C, class Kind, class Axis, class Ct, class St>
void rule(const CommCollective<C, Kind, Axis>& n, const Ct& ct, St& st) {
  if constexpr (std::is_same_v<Kind, all_reduce_kind<sum_op>>) {
    backprop(n.child, ct, st);
  } else if constexpr (std::is_same_v<Kind, all_gather_kind>) {
    // The gathered axis holds every member; the child holds this device's part of it.
    backprop(n.child, narrow_axis<Axis>(ct, n.offset, extent_of<Axis>(n.child)), st);
  } else if constexpr (std::is_same_v<Kind, reduce_scatter_kind<sum_op>>) {
    // Each device kept its block of the sum: the blocks' cotangents, gathered, are the sum's.
    backprop(n.child, CommCollective<Ct, all_gather_kind, Axis>(ct, n.comm, extent_of<Axis>(n.child), n.offset), st);
  } else {
    throw argument_error(
        "nax: grad: pmax or pmin lies between a differentiated argument and the output; JAX defines no "
        "derivative for them either. For the gradient of a maximum over members, use "
        "nax::max<g>(nax::all_gather<axis, g>(x)) (it goes to the members holding the extreme)");
  }
}

// ppermute: member d received member source[d]'s value, so member s gets back ct of the
// member it sent to (the inverse permutation, over the same communicator), zeros if it sent
// to none.
template <class C, class Axis, class Ct, class St>
void rule(const Permute<C, Axis>& p, const Ct& ct, St& st) {
  std::vector<index_t> inverse(p.source.size(), -1);
  for (std::size_t d = 0; d < p.source.size(); ++d)
    if (p.source[d] >= 0) inverse[static_cast<std::size_t>(p.source[d])] = static_cast<index_t>(d);
  backprop(p.child, Permute<Ct, Axis>{{}, ct, std::move(inverse), p.comm, p.offset}, st);
}

// all_to_all: its transpose is the all_to_all that sends the blocks back (Concat split, Split
// restored).
template <class C, class N, class Split, class Concat, class Ct, class St>
void rule(const AllToAll<C, N, Split, Concat>& a, const Ct& ct, St& st) {
  backprop(a.child, AllToAll<Ct, N, Concat, Split>{{}, ct, a.comm}, st);
}

}  // namespace nax::detail::ad
