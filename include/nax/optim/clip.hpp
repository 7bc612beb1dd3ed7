// optax.clip and optax.clip_by_global_norm (optax 0.2.8, optax/transforms/_clipping.py).
//   clip(max_delta):           update = min(max(u, -max_delta), max_delta)   (jnp.clip)
//   clip_by_global_norm(max):  norm = sqrt(sum over leaves of sum(u^2));
//                              update = norm < max ? u : (u / norm) * max
// clip_by_global_norm<Axes...>(max) inside xmap over parameters sharded along the logical axes
// Axes (bound to mesh axes): a leaf that varies over some of Axes holds one shard of its
// values, so its sum of squares is psum'd over those axes before the leaves are added; each
// device then clips its shards with the global norm. Leaves replicated over Axes are counted once.
#pragma once
#include "scale.hpp"

namespace nax::optim {

struct clip : stateless_transform<clip> {
  double max_delta;
  explicit clip(double m) : max_delta(m) {}
  template <class U, class P>
  auto leaf(int, std::size_t, U&& u, const P&) const {
    using T = detail::value_t<U>;
    return std::make_tuple(nax::minimum(nax::maximum(std::forward<U>(u), T(-max_delta)), T(max_delta)));
  }
};

namespace detail {
// The logical axes of Axes that a leaf's values vary over as a mapped (sharded) axis.
template <class E, class Axes>
using sharded_axes_t = nax::detail::intersection_t<Axes, nax::detail::hidden_t<E>>;

// sum(u^2) of one leaf, psum'd over the sharding axes it varies over.
template <class Axes, class U>
auto squared_norm(const U& u) {
  using E = nax::detail::expr_t<const U&>;
  auto local = nax::sum(nax::square(u));
  using S = sharded_axes_t<E, Axes>;
  if constexpr (S::size == 0)
    return local;
  else
    return [&]<class... As>(axes<As...>) { return nax::psum<As...>(std::move(local)); }(S{});
}
}  // namespace detail

template <class... Axes>
struct clip_by_global_norm : stateless_transform<clip_by_global_norm<Axes...>> {
  double max_norm;
  explicit clip_by_global_norm(double m) : max_norm(m) {}
  template <class S, class P, class Up>
  auto begin(const S&, const P&, const Up& up) const {
    auto terms = up.map([](std::size_t, const auto& u, const auto&...) { return detail::squared_norm<axes<Axes...>>(u); });
    auto total = detail::sum_terms(std::move(terms));
    if constexpr (std::is_same_v<decltype(total), detail::nothing>)
      return 0;  // no leaves
    else
      return nax::eval(nax::sqrt(std::move(total)));  // rank 0; inside xmap an evaluated mapped value
  }
  template <class N, class U, class P>
  auto leaf(const N& norm, std::size_t, U&& u, const P&) const {
    using T = detail::value_t<U>;
    using NT = detail::value_t<N>;
    // jax.lax.select(norm < max_norm, u, (u / norm.astype(T)) * max_norm)
    auto clipped = (u / nax::cast<T>(norm)) * T(max_norm);
    return std::make_tuple(nax::where(norm < NT(max_norm), std::forward<U>(u), std::move(clipped)));
  }
};

}  // namespace nax::optim
