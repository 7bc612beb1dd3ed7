// optax.chain(t1, t2, ...) (optax 0.2.8, optax/transforms/_combining.py): the parts applied in
// order, each to the previous one's updates; the state is the std::tuple of the parts' states.
// A chain is itself a transform (chains nest, as optax's do: chain(clip_by_global_norm(1),
// adamw(...)) has the state (EmptyState, (adam's, weight decay's, learning rate's))). Its parts'
// per-leaf functions compose into one expression per output, so a step of the whole chain is
// still one fused pass per leaf; a part that needs all leaves first (clip_by_global_norm) reads
// its input updates, computed from the earlier parts, in a reduction pass of its own.
#pragma once
#include <array>

#include "base.hpp"

namespace nax::optim {

template <class... Ts>
struct chain_t : transform_base<chain_t<Ts...>> {
  std::tuple<Ts...> parts;
  explicit chain_t(Ts... ts) : parts(std::move(ts)...) {}

  static constexpr std::size_t n = sizeof...(Ts);
  static constexpr std::size_t moments = (Ts::moments + ... + 0);
  static constexpr bool needs_params = (Ts::needs_params || ... || false);
  static constexpr std::array<std::size_t, n + 1> offsets = [] {
    std::array<std::size_t, n + 1> o{};
    std::size_t k = 0;
    ((o[k + 1] = o[k] + Ts::moments, ++k), ...);
    return o;
  }();
  template <class P>
  using state_shape = std::tuple<typename Ts::template state_shape<P>...>;

  template <class P>
  auto init(const P& params) const {
    return std::apply([&](const auto&... t) { return std::make_tuple(t.init(params)...); }, parts);
  }

  // Moment J of the chain: moment J - offsets[K] of part K.
  static constexpr std::size_t part_of(std::size_t j) {
    std::size_t k = 0;
    while (k + 1 < n && offsets[k + 1] <= j) ++k;
    return k;
  }
  template <std::size_t J, class S>
  static decltype(auto) moment(S&& state) {
    constexpr std::size_t K = part_of(J);
    using Part = std::tuple_element_t<K, std::tuple<Ts...>>;
    return Part::template moment<J - offsets[K]>(detail::child<K>(std::forward<S>(state)));
  }

  // f(moments of part K...) from the tuple of every moment of the chain at one leaf.
  template <std::size_t K, class Ms, class F>
  static decltype(auto) with_part_moments(Ms&& ms, F&& f) {
    using Part = std::tuple_element_t<K, std::tuple<Ts...>>;
    return [&]<std::size_t... J>(std::index_sequence<J...>) -> decltype(auto) {
      return f(std::get<offsets[K] + J>(std::forward<Ms>(ms))...);
    }(std::make_index_sequence<Part::moments>{});
  }

  // Parts K..Stop-1 at one leaf: (their output update, their new moments...).
  template <std::size_t K, std::size_t Stop, class Steps, class U, class P, class Ms>
  auto run_parts(const Steps& steps, std::size_t i, U&& u, const P& p, const Ms& ms) const {
    if constexpr (K == Stop) {
      return std::make_tuple(std::decay_t<U>(std::forward<U>(u)));
    } else {
      auto r = with_part_moments<K>(ms, [&](const auto&... m) {
        return std::get<K>(parts).leaf(std::get<K>(steps), i, std::forward<U>(u), p, m...);
      });
      auto rest = run_parts<K + 1, Stop>(steps, i, std::get<0>(std::move(r)), p, ms);
      return [&]<std::size_t... A, std::size_t... B>(std::index_sequence<0, A...>, std::index_sequence<0, B...>) {
        return std::make_tuple(std::get<0>(std::move(rest)), std::get<A>(std::move(r))..., std::get<B>(std::move(rest))...);
      }(std::make_index_sequence<std::tuple_size_v<decltype(r)>>{},
        std::make_index_sequence<std::tuple_size_v<decltype(rest)>>{});
    }
  }

  // What part K's begin sees as its input updates: the chain's, through parts 0..K-1.
  template <std::size_t K, class Up, class Steps>
  struct part_upstream {
    const chain_t& chain;
    const Up& up;
    const Steps& steps;  // of parts 0..K-1
    template <class F>
    auto map(F&& f) const {
      return up.map([&](std::size_t i, const auto& u, const auto& p, const auto&... m) {
        const auto ms = std::forward_as_tuple(m...);
        auto uk = std::get<0>(chain.template run_parts<0, K>(steps, i, u, p, ms));
        return with_part_moments<K>(ms, [&](const auto&... mk) { return f(i, uk, p, mk...); });
      });
    }
  };

  template <std::size_t K, class S, class P, class Up, class Steps>
  auto begin_from(const S& state, const P& params, const Up& up, Steps&& steps) const {
    if constexpr (K == n) {
      return std::forward<Steps>(steps);
    } else {
      part_upstream<K, Up, std::remove_cvref_t<Steps>> sub{*this, up, steps};
      auto sk = std::get<K>(parts).begin(detail::child<K>(state), params, sub);
      return begin_from<K + 1>(state, params, up, std::tuple_cat(std::move(steps), std::make_tuple(std::move(sk))));
    }
  }
  template <class S, class P, class Up>
  auto begin(const S& state, const P& params, const Up& up) const {
    return begin_from<0>(state, params, up, std::tuple<>{});
  }

  template <class Steps, class U, class P, class... M>
  auto leaf(const Steps& steps, std::size_t i, U&& u, const P& p, const M&... m) const {
    return run_parts<0, n>(steps, i, std::forward<U>(u), p, std::forward_as_tuple(m...));
  }

  template <std::size_t K, class S, class Steps, class All>
  auto finish_part(Steps& steps, std::remove_reference_t<S>& state, All& all) const {
    return with_part_moments<K>(std::move(all), [&](auto&&... m) {
      return std::get<K>(parts).finish(std::get<K>(std::move(steps)), detail::child<K>(std::forward<S>(state)),
                                       std::forward<decltype(m)>(m)...);
    });
  }
  template <class Steps, class S, class... NM>
  auto finish(Steps&& steps, S&& state, NM&&... nm) const {
    auto all = std::forward_as_tuple(std::forward<NM>(nm)...);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple<decltype(finish_part<K, S>(steps, state, all))...>{finish_part<K, S>(steps, state, all)...};
    }(std::make_index_sequence<n>{});
  }
};

// optax.chain.
template <class... Ts>
auto chain(Ts... ts) {
  return chain_t<Ts...>(std::move(ts)...);
}

}  // namespace nax::optim
