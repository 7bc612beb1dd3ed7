// Keys as expressions: a key is one std::uint64_t element (key_data), so key arrays are
// ordinary nax arrays and key operations are fused expression nodes (Generate, Map), like
// the samplers built on them. Random layer: sits on expr/ (nodes), below the backends.
#pragma once
#include <array>
#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "nax/expr/elementwise.hpp"
#include "nax/expr/generate.hpp"
#include "nax/expr/math.hpp"
#include "nax/expr/relayout.hpp"
#include "nax/random/key.hpp"

namespace nax::random {

// A key expression: any array or expression of std::uint64_t key data, of any rank (a key per
// element: keys along a batch axis give each batch element its own stream).
template <class K>
concept key_expression =
    array_like<K> && std::same_as<typename nax::detail::expr_t<K>::value_type, std::uint64_t>;

// What every random function takes as its key: a nax::random::Key or a key expression.
template <class K>
concept key_operand = std::same_as<std::remove_cvref_t<K>, Key> || key_expression<K>;

namespace detail {

// The key as a node: a C++ Key becomes a rank-0 Scalar of its key data.
template <class K>
auto as_key_expr(K&& key) {
  if constexpr (std::same_as<std::remove_cvref_t<K>, Key>) {
    return nax::detail::Scalar<std::uint64_t>{{}, key_data(key)};
  } else {
    return nax::detail::as_expr(std::forward<K>(key));
  }
}
template <class K>
using key_expr_t = decltype(as_key_expr(std::declval<K>()));

template <class KeyAxes, class Generated>
struct require_generated_axes_new {
  static_assert(nax::detail::intersection_t<KeyAxes, Generated>::size == 0,
                "nax::random: a generated axis is already an axis of the key (KeyAxes, Generated); "
                "name the sample axes differently from the key's axes");
  static constexpr bool value = true;
};

// Values f(key, linear index) over the generated axes Gs (row-major linear index in the order
// given), computed where consumed. The key's axes come first, then Gs: keys along a batch
// axis give (batch, Gs...), as jax.vmap puts the mapped axis first, and a loop over this
// order walks each stream along its counter with the per-key work outside the inner loop.
template <class... Gs, class F, class Seed>
auto generate(F f, Seed seed, const std::array<index_t, sizeof...(Gs)>& extents) {
  using KeyAxes = typename Seed::axes_type;
  static_assert(require_generated_axes_new<KeyAxes, nax::axes<Gs...>>::value);
  nax::detail::Generate<F, Seed, Gs...> node(std::move(f), std::move(seed), extents);
  if constexpr (KeyAxes::size == 0) {
    return node;
  } else {
    using Out = nax::detail::concat_t<KeyAxes, nax::axes<Gs...>>;
    auto r = nax::detail::by_name_relayout<Out>(std::move(node));
    r.extents_ = nax::detail::extents_by_name<Out>(r.child);
    return r;
  }
}

// ---- element functors (run inside the fused loops, host and device) ----

// split<Axis>(key, n): element i is split(key, n)[i].
struct split_fn {
  template <class S>
  using result = std::uint64_t;
  NAX_HOST_DEVICE constexpr std::uint64_t operator()(std::uint64_t key, index_t i) const {
    return key_data(split_one(wrap_key_data(key), i));
  }
};

// One fixed key of a split: split(key)[index], for every key of a key expression.
struct split_at_fn {
  index_t index;
  template <class S>
  using result = std::uint64_t;
  NAX_HOST_DEVICE constexpr std::uint64_t operator()(std::uint64_t key, index_t) const {
    return key_data(split_one(wrap_key_data(key), index));
  }
};

// fold_in(key, data), elementwise over key and data expressions.
struct fold_in_fn {
  template <class K, class D>
  using result = std::uint64_t;
  NAX_HOST_DEVICE constexpr std::uint64_t operator()(std::uint64_t key, std::uint32_t data) const {
    return key_data(fold_in(wrap_key_data(key), data));
  }
};

// Key `index` of split(key) as a node; done once, on the host, for a C++ Key.
template <class K>
auto key_at(K&& key, index_t index) {
  if constexpr (std::same_as<std::remove_cvref_t<K>, Key>) {
    return nax::detail::Scalar<std::uint64_t>{{}, key_data(split_one(key, index))};
  } else {
    return generate<>(split_at_fn{index}, as_key_expr(std::forward<K>(key)), {});
  }
}

inline void check_split_extents(const index_t* extents, std::size_t count) {
  for (std::size_t j = 0; j < count; ++j) check_split_count(extents[j]);
}

}  // namespace detail

// ---- the public key operations on key expressions ----
// (Key-level versions for a C++ Key are in key.hpp: split(Key) -> std::array<Key, 2>,
// split(Key, n) -> std::vector<Key>, fold_in(Key, data) -> Key.)

// jax.random.split(key) of a key expression: its two keys, as two key expressions with the
// key's axes. `auto [k1, k2] = split(keys);`
template <class K>
  requires key_expression<K>
auto split(K&& key) {
  using E = detail::key_expr_t<K>;
  E k = detail::as_key_expr(std::forward<K>(key));
  return std::array{detail::key_at(k, 0), detail::key_at(k, 1)};
}

// jax.random.split(key, n) as keys along the named axis A: element i is split(key, n)[i].
// A key with axes gives n keys for each of its keys: axes (key's axes..., A). n < 0 throws
// nax::argument_error naming n.
template <class A, class K>
  requires key_operand<K>
auto split(K&& key, index_t n) {
  check_split_count(n);
  return detail::generate<A>(detail::split_fn{}, detail::as_key_expr(std::forward<K>(key)), {n});
}

// jax.random.split(key, shape) with a named shape: keys along A, B, ... (row-major linear
// index over them, in the order given).
template <class A, class B, class... More, class K>
  requires key_operand<K>
auto split(K&& key, const std::array<index_t, 2 + sizeof...(More)>& extents) {
  detail::check_split_extents(extents.data(), extents.size());
  return detail::generate<A, B, More...>(detail::split_fn{}, detail::as_key_expr(std::forward<K>(key)), extents);
}

// jax.random.fold_in(key, data) where the key or the data is an expression: elementwise, the
// data an integer number or integer expression (wrapped to uint32, as JAX does). Axes of key
// and data broadcast by name.
template <class K, class D>
  requires key_operand<K> && (key_expression<K> || array_like<D>) && operand<D>
auto fold_in(K&& key, D&& data) {
  if constexpr (element<std::remove_cvref_t<D>>) {
    static_assert(std::is_integral_v<std::remove_cvref_t<D>>, "nax::random::fold_in: data must be an integer");
    return nax::detail::make_map<detail::fold_in_fn>(
        detail::as_key_expr(std::forward<K>(key)),
        nax::detail::Scalar<std::uint32_t>{{}, static_cast<std::uint32_t>(data)});
  } else {
    static_assert(std::is_integral_v<typename nax::detail::expr_t<D>::value_type>,
                  "nax::random::fold_in: data must be an integer");
    return nax::detail::make_map<detail::fold_in_fn>(detail::as_key_expr(std::forward<K>(key)),
                                                     cast<std::uint32_t>(std::forward<D>(data)));
  }
}

}  // namespace nax::random
