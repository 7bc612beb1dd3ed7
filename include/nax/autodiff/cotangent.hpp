// Cotangents and their shapes. A cotangent flowing into a node has the node's axes plus,
// possibly, mapped axes of the differentiated output that the node lacks (the output varies
// over a vmap/xmap/pmap axis: every member's loss has its own gradient, as vmap(grad(f))).
// fit: sums a cotangent down to a child's axes (un-broadcasting by name). Visible axes the
// child lacks are summed locally; mapped axes the child lacks and the output does not vary
// over are summed over every member (psum: the local part plus the mesh communicator).
// Autodiff layer: includes expr/ and transform/collectives.
#pragma once
#include "../expr/reduce.hpp"
#include "../expr/relayout.hpp"
#include "../transform/collectives.hpp"

namespace nax::detail::ad {

// Sum of e over the axes As... (e itself when there are none).
template <class E, class... As>
auto sum_over(E e, axes<As...>) {
  if constexpr (sizeof...(As) == 0) return e;
  else return Reduce<sum_op, E, As...>(std::move(e));
}

// Sum of e over every member of the mapped axis N (psum), e varying over it. Also when the
// map that bound N has returned (grad of a function that calls vmap: the backward pass runs
// after the vmap): then every member is here, so the sum is local (no communicator), as
// psum's inside a vmap. The type is psum's either way.
template <class N, class E>
auto psum_member(E e) {
  static_assert(contains_v<N, hidden_t<E>>);
  const axis_binding* b = find_binding<N>();
  using R = Reduce<sum_op, E, N>;
  const index_t members = b ? b->global_extent : extent_of<N>(e);
  return mark_unbound<N>(CommCollective<R, all_reduce_kind<sum_op>, N>(R(std::move(e)), b ? b->comm : nullptr, members));
}

// Sum of e over every member of the mapped axes Ns... (psum).
template <class E, class... Ns>
auto psum_over(E e, axes<Ns...>) {
  if constexpr (sizeof...(Ns) == 0) return e;
  else return [&]<class N, class... Rest>(axes<N, Rest...>) {
    return psum_over(psum_member<N>(std::move(e)), axes<Rest...>{});
  }(axes<Ns...>{});
}

// The cotangent ct summed to fit a child with axes ChildAxes (Hout: the output's mapped axes).
template <class ChildAxes, class Hout, class Ct>
auto fit(Ct ct) {
  auto local = sum_over(std::move(ct), difference_t<visible_t<Ct>, ChildAxes>{});
  using Members = difference_t<difference_t<hidden_t<Ct>, ChildAxes>, Hout>;
  return psum_over(std::move(local), Members{});
}

// Before a cotangent is broadcast back over axes a node removed (a reduction, psum's local
// part): mapped axes it carries as the output's that the child has too are summed over the
// members first, so the two uses of the name do not meet.
template <class NodeAxes, class ChildAxes, class Ct>
auto collapse(Ct ct) {
  using Clash = intersection_t<difference_t<hidden_t<Ct>, NodeAxes>, ChildAxes>;
  return psum_over(std::move(ct), Clash{});
}

// ct (axes: a subset of ChildAxes, plus extra mapped axes) broadcast by name to ChildAxes,
// whose extents are child_extents; the extra axes stay, mapped, after them.
template <class ChildAxes, class ChildHidden, class Ct>
auto spread(Ct ct, const std::array<index_t, ChildAxes::size>& child_extents) {
  using Extra = difference_t<typename Ct::axes_type, ChildAxes>;
  using Out = concat_t<ChildAxes, Extra>;
  using Hidden = union_t<ChildHidden, Extra>;
  auto r = by_name_relayout<Out, Ct, Hidden, unbound_t<Ct>>(std::move(ct));
  [&]<class... Os>(axes<Os...>) {
    r.extents_ = {[&]() -> index_t {
      if constexpr (contains_v<Os, ChildAxes>) return child_extents[index_of_v<Os, ChildAxes>];
      else return extent_of<Os>(r.child);
    }()...};
  }(Out{});
  return r;
}

// Is the relayout a pure relabelling (child axis j is node axis k, offset 0, same extent)?
// By name for identity_kind, by position for a rename. Node axes the child lacks, if any, are
// a broadcast.
template <class C, class Kind, class Out, class H, class U>
bool simple_relayout(const Relayout<C, Kind, Out, H, U>& r) {
  using CA = typename C::axes_type;
  bool ok = true;
  [&]<class... Cx>(axes<Cx...>) {
    std::size_t j = 0;
    [[maybe_unused]] auto row = [&]<class X>(std::type_identity<X>) {
      std::size_t k = j;
      if constexpr (std::is_same_v<Kind, identity_kind>) k = index_of_v<X, Out>;
      if (r.offset[j] != 0) ok = false;
      for (std::size_t q = 0; q != Out::size; ++q)
        if (r.coef[j][q] != (q == k ? 1 : 0)) ok = false;
      if (r.extents()[k] != r.child.extents()[j]) ok = false;
      ++j;
    };
    (row(std::type_identity<Cx>{}), ...);
  }(CA{});
  return ok;
}

}  // namespace nax::detail::ad
