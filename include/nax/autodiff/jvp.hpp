// nax::jvp(f, primals, tangents) -> std::pair(outputs, output_tangents), as jax.jvp: forward
// mode. primals and tangents are std::tuples (nax::tuple) with one entry per argument of f, a
// tangent with its primal's structure and axes. f is called once; the tangent of each output
// is its expression's forward rules (forward.hpp) over the arguments' tangents, evaluated with
// the value in one context (one fused pass per output tangent; partial derivatives read the
// value's memoised reductions and contractions). Host backend. f may evaluate intermediates
// (a loop over layers): each evaluation that depends on an argument evaluates its tangent
// beside its value (record.hpp), and the leaves that read its output read that tangent. Raw
// reads of what depends on an argument raise (tape.hpp's guards).
#pragma once
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "forward.hpp"
#include "tangents.hpp"
#include "vjp.hpp"

namespace nax {
namespace detail::ad {

template <std::size_t Primals, std::size_t Tangents>
struct require_tangent_count {
  static_assert(Primals == Tangents,
                "nax: jvp: the number of tangents (Tangents) differs from the number of primals (Primals); pass "
                "nax::tuple(t1, t2, ...) with one tangent per argument of f");
  static constexpr bool value = true;
};
template <class PrimalAxes, class TangentAxes>
struct require_tangent_axes {
  static_assert(same_set_v<PrimalAxes, TangentAxes>,
                "nax: jvp: a tangent's axes (TangentAxes) differ from its primal's (PrimalAxes); give each argument "
                "a tangent with the same axis names (and pytree structure)");
  static constexpr bool value = true;
};

template <class Given>
struct require_vector_tangent {
  static_assert(is_vector_argument_v<Given>,
                "nax: jvp: the tangent of a std::vector argument must be a std::vector too (Given is not one), with "
                "as many elements, each of the element's pytree structure");
  static constexpr bool value = true;
};

template <std::size_t PrimalLeaves, std::size_t TangentLeaves>
struct require_tangent_tree {
  static_assert(PrimalLeaves == TangentLeaves,
                "nax: jvp: a tangent has another number of leaves (TangentLeaves) than its primal (PrimalLeaves); give "
                "each argument a tangent of the same pytree structure");
  static constexpr bool value = true;
};

inline constexpr const char* jvp_refusal =
    "nax: jvp: f calls a custom_vjp function on a value that depends on an argument; forward mode cannot go through "
    "a custom_vjp (as in JAX): differentiate it with vjp or grad";

// A primal leaf's tangent, evaluated into an array of the primal's axes (all of them: inside a
// map, the mapped ones too).
template <class P, class Tn>
std::shared_ptr<array_for_t<typename P::value_type, typename P::axes_type>> tangent_array(const P& primal,
                                                                                         const Tn& given) {
  using T = typename P::value_type;
  using Axes = typename P::axes_type;
  auto t = as_expr(given);
  using E = decltype(t);
  static_assert(require_tangent_axes<visible_t<P>, visible_t<E>>::value);
  [&]<class... As>(axes<As...>) {
    [[maybe_unused]] auto check = [&]<class X>(std::type_identity<X>) {
      if (extent_of<X>(t) != extent_of<X>(primal))
        throw shape_error("nax: jvp: a tangent has extent " + std::to_string(extent_of<X>(t)) + " along '" +
                          std::string(axis_name<X>()) + "', its primal has " + std::to_string(extent_of<X>(primal)));
    };
    (check(std::type_identity<As>{}), ...);
  }(visible_t<P>{});
  auto a = std::make_shared<array_for_t<T, Axes>>(no_fill, primal.extents());
  auto whole = positional_relayout<identity_kind, typename E::axes_type, E, axes<>, axes<>>(std::move(t));
  auto ctx = host_space::make_context();
  host_space::assign(a->view(), make_map<fn::cast_to<T>>(std::move(whole)), ctx);
  return a;
}

template <class F>
struct jvp_of {
  F f;

  template <class... Ps, class... Ts>
  auto operator()(const std::tuple<Ps...>& primals, const std::tuple<Ts...>& tangents) const {
    static_assert(require_tangent_count<sizeof...(Ps), sizeof...(Ts)>::value);
    auto all = prepared_arguments<every_argument>(primals);
    tangent_env env;
    // Guards raw reads; each evaluation that depends on an argument evaluates its tangent too.
    tape record(false, jvp_refusal);
    record.set_name("jvp");
    record.set_forward(&env);
    [&]<std::size_t... P>(std::index_sequence<P...>) {
      (add_argument(record, env, std::get<P>(all), std::get<P>(tangents)), ...);
    }(std::index_sequence_for<Ps...>{});
    auto out = [&] {
      tape_scope scope(record);
      return tree_transform_leaves(std::apply(f, all), [](auto&& leaf) { return as_expr(std::forward<decltype(leaf)>(leaf)); });
    }();
    std::apply([&](const auto&... leaf) { record.finish_forward(leaf...); }, tree_leaves(out));
    tape_pause pause;
    auto ctx = host_space::make_context();
    auto values = tree_transform_leaves(out, [&](const auto& leaf) { return value_in_context<host_space>(leaf, ctx); });
    auto derivatives = tree_transform_leaves(out, [&](const auto& leaf) {
      using L = std::remove_cvref_t<decltype(leaf)>;
      if constexpr (std::is_floating_point_v<typename L::value_type>)
        return value_in_context<host_space>(tangent(leaf, env), ctx);
      else
        return value_in_context<host_space>(zero_tangent(leaf), ctx);
    });
    return std::make_pair(std::move(values), std::move(derivatives));
  }

 private:
  // Each leaf of a primal tracked (the guards), with its tangent; a std::vector element by
  // element (its tangent: a std::vector of as many elements, each of the element's structure).
  template <class Prepared, class Given>
  static void add_argument(tape& record, tangent_env& env, const Prepared& primal, const Given& tangent_tree) {
    if constexpr (is_vector_argument_v<Prepared>) {
      static_assert(require_vector_tangent<Given>::value);
      if (tangent_tree.size() != primal.size())
        throw shape_error("nax: jvp: a std::vector argument has " + std::to_string(primal.size()) +
                          " elements, its tangent " + std::to_string(tangent_tree.size()));
      for (std::size_t i = 0; i != primal.size(); ++i) add_argument(record, env, primal[i], tangent_tree[i]);
    } else {
      add_leaves(record, env, primal, tangent_tree);
    }
  }
  template <class Prepared, class Given>
  static void add_leaves(tape& record, tangent_env& env, const Prepared& primal, const Given& tangent_tree) {
    auto p_leaves = tree_leaves(primal);
    auto t_leaves = tree_leaves(tangent_tree);
    static_assert(require_tangent_tree<std::tuple_size_v<decltype(p_leaves)>, std::tuple_size_v<decltype(t_leaves)>>::value);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      auto one = [&](const auto& p, const auto& t) {
        auto e = as_expr(p);
        using T = typename decltype(e)::value_type;
        static_assert(require_floating_variable<T, std::remove_cvref_t<decltype(p)>>::value);
        const auto view = argument_view(p);
        record.track_argument(view);
        env.add(view, tangent_array(e, t));
      };
      (one(std::get<K>(p_leaves), std::get<K>(t_leaves)), ...);
    }(std::make_index_sequence<std::tuple_size_v<decltype(p_leaves)>>{});
  }
};

}  // namespace detail::ad

// jvp(f, primals, tangents) -> std::pair(outputs, output_tangents) (see above).
template <class F, class... Ps, class... Ts>
auto jvp(F f, const std::tuple<Ps...>& primals, const std::tuple<Ts...>& tangents) {
  return detail::ad::jvp_of<F>{std::move(f)}(primals, tangents);
}

}  // namespace nax
