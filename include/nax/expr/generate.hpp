// Generate: values computed from their own position, generated where they are consumed
// (inside the fused pass, never stored). value = F(seed value, linear index), where the
// linear index is row-major over the generated axes Gs... and the seed is read from an
// expression (a key for random samplers; its axes broadcast by name, so a key that varies
// over a batch axis gives each batch element its own stream).
#pragma once
#include "node.hpp"

namespace nax::detail {

template <class F, class Seed, class... Gs>
struct Generate : node_interface<Generate<F, Seed, Gs...>> {
  using generated_axes = axes<Gs...>;
  using seed_type = Seed;
  using functor = F;
  using axes_type = union_t<generated_axes, typename Seed::axes_type>;
  using value_type = typename F::template result<typename Seed::value_type>;
  using hidden_type = hidden_t<Seed>;
  using unbound_type = unbound_t<Seed>;
  static constexpr std::size_t rank = axes_type::size;

  F f;
  Seed seed;
  std::array<index_t, sizeof...(Gs)> generated_extents{};
  std::array<index_t, rank> extents_{};

  Generate(F f_, Seed seed_, const std::array<index_t, sizeof...(Gs)>& extents)
      : f(std::move(f_)), seed(std::move(seed_)), generated_extents(extents) {
    static_assert(require_unique_axes<axes_type>::value);
    checked_size(generated_axes{}, extents);
    [&]<class... As>(axes<As...>) {
      extents_ = {(contains_v<As, generated_axes> ? generated_extents[index_of_v<As, generated_axes>]
                                                  : seed_extent<As>())...};
    }(axes_type{});
  }
  const std::array<index_t, rank>& extents() const { return extents_; }

 private:
  template <class A>
  index_t seed_extent() const {
    if constexpr (contains_v<A, typename Seed::axes_type>) return extent_of<A>(seed);
    else return 0;
  }
};

}  // namespace nax::detail
