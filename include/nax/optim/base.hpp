// The optimizer interface (optax's GradientTransformation, optax 0.2.8) and the driver every
// transform's update goes through.
//
//   auto state = opt.init(params);                                  // a pytree
//   auto [updates, new_state] = opt.update(grads, state, params);   // std::pair
//   params = nax::optim::apply_updates(params, updates);
//   // or both at once, one pass per leaf, no updates tree:
//   auto [new_params, s] = nax::optim::update_and_apply(opt, grads, state, params);
//
// How a transform is written (docs/training.md "Writing a transform"): besides init, it
// describes one step in parts that compose, so that a chain of transforms runs as one fused
// pass per leaf:
//   moments                     how many trees of its state are shaped as the parameters
//                               (adam: mu and nu); moment<J>(state) returns tree J;
//   begin(state, params, up)    what the step needs before the leaves (a learning rate from
//                               the count, a global norm: `up.map(f)` maps f over this
//                               transform's input updates, lazily, leaf by leaf);
//   leaf(step, i, u, p, m...)   leaf i: from its input update u, parameter p and moments m...
//                               (expressions), the tuple (output update, new moments...), lazy;
//   finish(step, state, new moments...)  the new state.
// The driver (run_update) calls begin, then for each leaf the transform's leaf() and writes
// the update (or the new parameter) and the new moments in one pass (fused.hpp), then finish.
#pragma once
#include <climits>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "fused.hpp"
#include "schedule.hpp"

namespace nax::optim {

// optax.EmptyState: the state of a transform that keeps none.
using EmptyState = std::tuple<>;
// optax's step counts: a rank-0 int32 array (on the host, also for device parameters: the
// schedules are evaluated on the host).
using Count = nax::Array<std::int32_t>;

namespace detail {

inline Count make_count(std::int64_t value) {
  Count c(std::array<index_t, 0>{});
  c.data()[0] = static_cast<std::int32_t>(value);
  return c;
}
template <class C>
std::int64_t read_count(const C& count) {
  return static_cast<std::int64_t>(nax::item(count));
}
// optax's numerics.safe_increment: count + 1, saturating at the type's maximum.
inline std::int64_t safe_increment(std::int64_t count) { return count < INT32_MAX ? count + 1 : INT32_MAX; }

template <class S>
inline constexpr bool is_struct_v = tree_kind_v<std::remove_cvref_t<S>> == tree_kind::hana_struct;

// The state a transform returns, in the form it was given: its struct, or (through xmap) the
// std::tuple of the struct's members.
template <template <class...> class Struct, class Given, class... Members>
auto make_state(Members&&... members) {
  if constexpr (is_struct_v<Given>)
    return Struct<std::remove_cvref_t<Members>...>{std::forward<Members>(members)...};
  else
    return std::tuple<std::remove_cvref_t<Members>...>(std::forward<Members>(members)...);
}

// Leaf i of the trees: the parameter, the gradient and each moment agree in axes and extents.
template <class G, class P, class... M>
void check_leaves(std::size_t i, const G& g, const P& p, const M&... m) {
  check_leaf(i, "parameter", p, "gradient", g);
  (check_leaf(i, "parameter", p, "state's moment", m), ...);
}

// up.map(f) of the driver: f(i, g, p, m...) at every leaf (lazy views of the trees).
template <class Grads, class Params, class Moments>
struct top_upstream {
  const Grads& grads;
  const Params& params;
  Moments moments;  // a tuple of const references
  template <class F>
  auto map(F&& f) const {
    std::size_t index = 0;
    auto leaf_fn = [&](auto, const auto& g, const auto& p, const auto&... m) {
      const std::size_t i = index++;
      check_leaves(i, g, p, m...);
      return f(i, arg(g), arg(p), arg(m)...);
    };
    return std::apply([&](const auto&... m) { return nax::detail::map_leaves<0>(leaf_fn, grads, params, m...); },
                      moments);
  }
};
template <class G, class P, class M>
top_upstream(const G&, const P&, M) -> top_upstream<G, P, M>;

// Whether the trees given to update fit (else the require_* checks say why, and nothing else
// is compiled, so that their message is the only error).
template <class Tr, class G, class S, class P>
constexpr bool trees_fit() {
  using PD = std::remove_cvref_t<P>;
  if constexpr (!nax::detail::same_structure_v<PD, std::remove_cvref_t<G>>) {
    return false;
  } else if constexpr (!Tr::template state_matches<std::remove_cvref_t<S>, PD>()) {
    return false;
  } else {
    return []<std::size_t... J>(std::index_sequence<J...>) {
      return (nax::detail::same_structure_v<
                  PD, std::remove_cvref_t<decltype(Tr::template moment<J>(std::declval<const std::remove_reference_t<S>&>()))>> &&
              ... && true);
    }(std::make_index_sequence<Tr::moments>{});
  }
}
template <class Tr, class G, class S, class P>
void report_trees() {
  using PD = std::remove_cvref_t<P>;
  if constexpr (!nax::detail::same_structure_v<PD, std::remove_cvref_t<G>>)
    static_assert(require_grads_match_params<PD, std::remove_cvref_t<G>>::value);
  else if constexpr (!Tr::template state_matches<std::remove_cvref_t<S>, PD>())
    static_assert(require_state_of<Tr, std::remove_cvref_t<S>, PD>::value);
  else
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      (void)(require_moments_match_params<PD, std::remove_cvref_t<decltype(Tr::template moment<J>(
                                                  std::declval<const std::remove_reference_t<S>&>()))>>::value &&
             ... && true);
    }(std::make_index_sequence<Tr::moments>{});
}

// One step of transform tr. Apply = false: (updates, new state); true: (new params, new state),
// the update added to each parameter in the same pass (optax.apply_updates' p + u in p's type).
template <bool Apply, class Tr, class G, class S, class P>
auto run_fitting(const Tr& tr, G&& grads, S&& state, P&& params);

template <bool Apply, class Tr, class G, class S, class P>
auto run_update(const Tr& tr, G&& grads, S&& state, P&& params) {
  if constexpr (!trees_fit<Tr, G, S, P>()) {
    report_trees<Tr, G, S, P>();
    return std::pair<int, int>{};
  } else {
    return run_fitting<Apply>(tr, std::forward<G>(grads), std::forward<S>(state), std::forward<P>(params));
  }
}
template <bool Apply, class Tr, class G, class S, class P>
auto run_fitting(const Tr& tr, G&& grads, S&& state, P&& params) {
  using Seq = std::make_index_sequence<Tr::moments>;
  auto step = tr.begin(std::as_const(state), std::as_const(params),
                       top_upstream{std::as_const(grads), std::as_const(params), forward_moments<Tr>(std::as_const(state), Seq{})});
  std::size_t index = 0;
  auto leaf_fn = [&](auto, auto&& g, auto&& p, auto&&... m) {
    const std::size_t i = index++;
    check_leaves(i, g, p, m...);
    auto exprs = tr.leaf(step, i, arg(g), arg(p), arg(m)...);  // (update, new moments...)
    if constexpr (Apply) {
      using TP = typename nax::detail::expr_t<decltype(arg(p))>::value_type;
      auto out = [&]<std::size_t... K>(std::index_sequence<0, K...>) {
        return std::make_tuple(nax::cast<TP>(arg(p) + std::get<0>(std::move(exprs))), std::get<K>(std::move(exprs))...);
      }(std::make_index_sequence<std::tuple_size_v<decltype(exprs)>>{});
      return emit(std::forward_as_tuple(std::forward<decltype(p)>(p), std::forward<decltype(m)>(m)...), std::move(out));
    } else {
      return emit(std::forward_as_tuple(std::forward<decltype(g)>(g), std::forward<decltype(m)>(m)...), std::move(exprs));
    }
  };
  auto zipped = std::apply(
      [&](auto&&... m) {
        return nax::detail::map_leaves<0>(leaf_fn, std::forward<G>(grads), std::forward<P>(params),
                                          std::forward<decltype(m)>(m)...);
      },
      forward_moments<Tr>(std::forward<S>(state), Seq{}));
  auto new_moments = [&]<std::size_t... J>(std::index_sequence<J...>) {
    return std::make_tuple(unzip<1 + J>(Tr::template moment<J>(std::as_const(state)), std::move(zipped))...);
  }(Seq{});
  auto first = [&] {
    if constexpr (Apply) return unzip<0>(std::as_const(params), std::move(zipped));
    else return unzip<0>(std::as_const(grads), std::move(zipped));
  }();
  auto new_state = std::apply(
      [&](auto&&... nm) { return tr.finish(std::move(step), std::forward<S>(state), std::move(nm)...); },
      std::move(new_moments));
  return std::pair<decltype(first), decltype(new_state)>(std::move(first), std::move(new_state));
}

}  // namespace detail

// What every transform inherits: update(grads, state, params) and update(grads, state) (for
// transforms that do not read params), both returning std::pair(updates, new state). A state
// or gradients passed as rvalues give their buffers to the new state and the updates.
template <class Derived>
struct transform_base {
  static constexpr bool needs_params = false;

  template <class G, class S, class P>
  auto update(G&& grads, S&& state, P&& params) const {
    return detail::run_update<false>(self(), std::forward<G>(grads), std::forward<S>(state), std::as_const(params));
  }
  template <class G, class S>
  auto update(G&& grads, S&& state) const {
    static_assert(detail::require_params_given<Derived>::value);
    if constexpr (!Derived::needs_params) {
      const auto& shape = grads;  // params stand-in: never read by a transform that needs none
      return detail::run_update<false>(self(), std::forward<G>(grads), std::forward<S>(state), shape);
    } else {
      return std::pair<int, int>{};
    }
  }
  template <class S, class P>
  static constexpr bool state_matches() {
    return detail::same_shape_v<typename Derived::template state_shape<P>, S>;
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// What a transform that keeps no state inherits besides update: no moments, an EmptyState, and
// a begin that computes nothing (a transform whose leaves need a value from before them, as
// clip_by_global_norm's norm, defines its own begin).
template <class Derived>
struct stateless_transform : transform_base<Derived> {
  static constexpr std::size_t moments = 0;
  template <class P>
  using state_shape = EmptyState;
  template <class P>
  EmptyState init(const P&) const {
    return {};
  }
  template <std::size_t J, class S>
  static void moment(S&&);
  template <class S, class P, class Up>
  int begin(const S&, const P&, const Up&) const {
    return 0;
  }
  template <class Step, class S>
  EmptyState finish(const Step&, S&&) const {
    return {};
  }
};

// optax.apply_updates: p + u for every leaf, in the parameter's element type (one pass per
// leaf; parameters passed as an rvalue are updated in their own buffers).
template <class P, class U>
auto apply_updates(P&& params, const U& updates) {
  if constexpr (!nax::detail::same_structure_v<std::remove_cvref_t<P>, U>) {
    static_assert(detail::require_grads_match_params<std::remove_cvref_t<P>, U>::value);
    return 0;
  } else {
  std::size_t index = 0;
  auto leaf_fn = [&](auto, auto&& p, const auto& u) {
    detail::check_leaf(index++, "parameter", p, "update", u);
    using TP = typename nax::detail::expr_t<decltype(detail::arg(p))>::value_type;
    auto out = std::make_tuple(nax::cast<TP>(detail::arg(p) + detail::arg(u)));
    return std::get<0>(detail::emit(std::forward_as_tuple(std::forward<decltype(p)>(p)), std::move(out)));
  };
  return nax::detail::map_leaves<0>(leaf_fn, std::forward<P>(params), updates);
  }
}

// update followed by apply_updates, one pass per leaf: reads each gradient, parameter and
// moment once and writes each new parameter and moment once, with no updates tree.
// Returns std::pair(new params, new state).
template <class Opt, class G, class S, class P>
auto update_and_apply(const Opt& opt, const G& grads, S&& state, P&& params) {
  return detail::run_update<true>(opt, grads, std::forward<S>(state), std::forward<P>(params));
}

}  // namespace nax::optim
