// jax.random.gumbel (mode "low", JAX's default) and jax.random.categorical (with replacement,
// shape None: one draw per position of the logits' other axes) as fused expressions:
// gumbel = -log(-log(uniform on [tiny, 1))), categorical = argmax over the class axis of
// gumbel noise plus the logits. The noise is drawn over the logits' visible axes in their
// order, row-major, which is the layout JAX draws it in for an array of that shape, so the
// same key gives JAX's samples (inside vmap, an unmapped key gives every member the same
// noise, as jax.vmap does; a mapped key gives each member its own).
#pragma once
#include <limits>

#include "nax/expr/reduce.hpp"
#include "nax/random/samplers.hpp"

namespace nax::random {

// jax.random.gumbel(key, shape, dtype): float by default; gumbel<double, row, col>(k, {r, c}).
template <class... Ps, class K>
  requires key_operand<K>
auto gumbel(K&& key, const detail::sample_extents<Ps...>& extents) {
  using T = detail::sampler_t<float, Ps...>;
  static_assert(detail::require_floating_sample<T>::value);
  auto u = [&]<class... Ss>(nax::axes<Ss...>) {
    return uniform<T, Ss...>(std::forward<K>(key), extents, double(std::numeric_limits<T>::min()), 1.0);
  }(detail::sample_axes_t<Ps...>{});
  return -nax::log(-nax::log(std::move(u)));
}

// jax.random.categorical(key, logits, axis): the index along A drawn with probabilities
// softmax<A>(logits), one per position of the logits' other axes (int32).
template <class A, class K, class L>
  requires key_operand<K> && array_like<L>
auto categorical(K&& key, L&& logits) {
  using E = nax::detail::expr_t<L>;
  using T = typename E::value_type;
  static_assert(std::is_floating_point_v<T>, "nax::random::categorical needs floating-point logits");
  static_assert(nax::detail::require_axis_present<A, nax::detail::visible_t<E>>::value);
  using V = nax::detail::visible_t<E>;
  auto z = nax::detail::as_expr(std::forward<L>(logits));
  const auto extents = nax::detail::extents_by_name<V>(z);
  auto noise = [&]<class... Vs>(nax::axes<Vs...>) { return gumbel<T, Vs...>(std::forward<K>(key), extents); }(V{});
  return argmax<A>(std::move(noise) + std::move(z));
}

}  // namespace nax::random
