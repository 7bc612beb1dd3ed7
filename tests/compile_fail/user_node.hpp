// A node added outside nax with a host implementation only (its materialise_node takes the
// host context): for cuda_unsupported_node.cu and its control cuda_joins_ok.cu.
#pragma once
#include <nax/nax.hpp>

namespace user {
// Reverses its child along its axes (the definition would live in the user's code).
template <class C>
struct Reverse : nax::detail::node_interface<Reverse<C>> {
  using value_type = typename C::value_type;
  using axes_type = typename C::axes_type;
  C child;
  std::uint64_t id = nax::detail::next_node_id();
  const auto& extents() const { return child.extents(); }
};
template <class C>
nax::detail::leaf_for_t<Reverse<C>> materialise_node(const Reverse<C>& node, nax::detail::host::context& ctx);
}  // namespace user
