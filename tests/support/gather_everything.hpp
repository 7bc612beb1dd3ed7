// The compositions nax's ppermute, all_to_all and psum_scatter had before each got its own
// communicator call: every member's whole value all-gathered (or a full all-reduce), then
// this device's part kept. Kept as references: tests/transform/collective_traffic_test.cpp
// checks the new paths against them bit for bit, bench/collectives.cpp times both.
#pragma once
#include <nax/nax.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace gather_everything {

namespace nd = nax::detail;

struct swapped_tag : nax::axis_tag {
  static constexpr const char* axis_label() { return "swapped"; }
};

template <class N, class Axis, class X>
auto psum_scatter(const X& x) {
  return nd::own_part<N>(nd::hide_axis<N>(nd::rename_axis<Axis, N>(nax::psum<N>(x))));
}
template <class N, class Axis, class X>
auto psum_scatter_tiled(const X& x) {
  const nax::index_t block = nd::extent_of<Axis>(nd::as_expr(x)) / nd::binding_of<N>().global_extent;
  return nd::own_part<N>(nd::hide_axis<N>(nax::split<Axis, N, Axis>(nax::psum<N>(x), block)));
}
template <class N, class X>
auto ppermute(const X& x, const std::vector<std::pair<int, int>>& perm) {
  auto source = nd::permutation_sources<N>(perm, nd::binding_of<N>().global_extent);
  auto everyone = nd::gather_mapped<N>(nd::ensure_mapped<N>(nd::as_expr(x)));
  nd::Permute<decltype(everyone), N> permuted{{}, std::move(everyone), std::move(source)};
  return nd::mark_unbound<N>(nd::own_part<N>(std::move(permuted)));
}
template <class N, class Split, class Concat, class X>
auto all_to_all(const X& x) {
  using E = nd::expr_t<const X&>;
  auto everyone = nd::gather_mapped<N>(nd::ensure_mapped<N>(nd::as_expr(x)));
  constexpr std::size_t position = nd::index_of_v<Split, nd::visible_t<E>>;
  auto a = nd::rename_axis<Split, swapped_tag>(std::move(everyone));
  auto b = nd::rename_axis<N, Concat>(std::move(a));
  auto d = nd::rename_axis<swapped_tag, N>(std::move(b));
  auto e = nd::reveal_axis<Concat, position>(nd::hide_axis<N>(std::move(d)));
  return nd::mark_unbound<N>(nd::own_part<N>(std::move(e)));
}

}  // namespace gather_everything
