// nax::vjp(f)(args...) -> std::pair(outputs, pullback), as jax.vjp: f's outputs (a pytree of
// arrays of any rank: the value) and a function that maps cotangents of the outputs (the same
// pytree, each leaf with its output's axes and extents) to the cotangents of every argument
// (a std::tuple, one gradient tree per argument). f runs once, with a tape (tape.hpp) as in
// grad; the pullback keeps the tape, f's outputs as expressions and the forward pass's memo,
// so each call is one backward pass (nothing of the forward pass is recomputed), and it may be
// called many times (rows of a Jacobian). It holds the arguments too (moved or copied in), so
// it may outlive them. Inside vmap/xmap, call it where vjp was called: its cotangents may vary
// over the mapped axes as the outputs do, and the psums of its backward pass need the map.
#pragma once
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "grad.hpp"
#include "record.hpp"

namespace nax {
namespace detail::ad {

template <class OutputAxes, class CotangentAxes>
struct require_cotangent_axes {
  static_assert(same_set_v<OutputAxes, CotangentAxes>,
                "nax: vjp: a cotangent's axes (CotangentAxes) differ from its output's (OutputAxes); the "
                "pullback takes one cotangent per output of f, with that output's axis names (in any order)");
  static constexpr bool value = true;
};
template <class Outputs, class Cotangents>
struct require_cotangent_tree {
  static_assert(std::tuple_size_v<Outputs> == std::tuple_size_v<Cotangents>,
                "nax: vjp: the pullback's argument has another number of leaves than f's outputs (Outputs, "
                "Cotangents); pass a pytree of the outputs' structure, one cotangent per output");
  static constexpr bool value = true;
};

// The extents of the outputs' mapped axes (for the per-member gradients' shapes).
template <class Hout>
struct mapped_extents {
  using axes_type = Hout;
  std::array<index_t, Hout::size> values{};
  const std::array<index_t, Hout::size>& extents() const { return values; }
};
template <class Hout, class... Ls>
mapped_extents<Hout> extents_of_mapped(const std::tuple<Ls...>& leaves) {
  mapped_extents<Hout> m;
  [&]<class... Xs>(axes<Xs...>) {
    std::size_t k = 0;
    [[maybe_unused]] auto one = [&]<class X>(std::type_identity<X>) {
      auto look = [&](const auto& l) {
        if constexpr (contains_v<X, typename std::remove_cvref_t<decltype(l)>::axes_type>) m.values[k] = extent_of<X>(l);
      };
      std::apply([&](const auto&... l) { (look(l), ...); }, leaves);
      ++k;
    };
    (one(std::type_identity<Xs>{}), ...);
  }(Hout{});
  return m;
}

// The outputs' value, evaluated in the forward pass's context (its memo serves the backward
// passes): an Array, or inside a map, for an output that varies over mapped axes, an
// evaluated mapped value.
template <class Space, class E>
auto value_in_context(const E& e, typename Space::context& ctx) {
  using Axes = typename E::axes_type;
  using T = typename E::value_type;
  auto whole = positional_relayout<identity_kind, Axes, E, axes<>, axes<>>(e);
  auto a = Space::template uninitialised<T, Axes>(e.extents());
  Space::assign(Space::writable(*a), whole, ctx);
  if constexpr (hidden_t<E>::size == 0 && unbound_t<E>::size == 0) {
    return std::move(*a);
  } else {
    auto leaf = leaf_of(std::as_const(*a).view(), a);
    return positional_relayout<identity_kind, Axes, decltype(leaf), hidden_t<E>, unbound_t<E>>(std::move(leaf));
  }
}

// What a pullback holds: the arguments (given), what f saw of them (prepared: references into
// given, or owned arrays), the tape, the output expressions and the forward pass's context.
template <class Space, class Given, class Prepared, class OutTree>
struct linearized {
  std::shared_ptr<Given> given;
  Prepared all;
  std::shared_ptr<tape> record;
  std::vector<std::size_t> tracked;
  std::vector<std::vector<std::size_t>> vector_tracked;  // per argument: a std::vector's leaves (else empty)
  OutTree out;
  typename Space::context ctx;
};

template <class Space, class Hout, class L>
struct pullback {
  std::shared_ptr<L> s;

  template <class Cotangents>
  auto operator()(const Cotangents& cotangents) const {
    tape_pause pause;  // (the backward pass records nothing, also inside another grad's f)
    auto out_leaves = tree_leaves(s->out);
    auto ct_leaves = tree_leaves(cotangents);
    using OutLeaves = decltype(out_leaves);
    static_assert(require_cotangent_tree<OutLeaves, decltype(ct_leaves)>::value);
    const auto shape = extents_of_mapped<Hout>(out_leaves);
    auto vars = std::apply(
        [&](const auto&... a) { return std::tuple_cat(variables_of<Hout, Space>(a, shape)...); }, s->all);
    state<Space, Hout, decltype(vars)> st{copy_context(s->ctx), std::move(vars)};
    tape& record = *s->record;
    constexpr std::size_t arguments = std::tuple_size_v<decltype(s->all)>;
    // Fresh gradients of the std::vector arguments for this pass, linked to their leaves.
    auto dynamic = [&]<std::size_t... P>(std::index_sequence<P...>) {
      return std::make_tuple(link_vector_argument<Hout, Space>(record, std::get<P>(s->all), s->vector_tracked[P], shape)...);
    }(std::make_index_sequence<arguments>{});
    if (record.has_entries() || has_vectors) {
      link_arguments<Space>(record, s->tracked, st.vars);
      record.set_output_mapped(Hout{}, shape);
      st.record = &record;
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (send(std::get<K>(out_leaves), std::get<K>(ct_leaves), K, st), ...);
    }(std::make_index_sequence<std::tuple_size_v<OutLeaves>>{});
    if (record.has_entries()) record.run_backward(/*keep=*/true);
    return gradients(st, dynamic, std::make_index_sequence<arguments>{});
  }

 private:
  static typename Space::context copy_context(const typename Space::context& c) {
    if constexpr (std::is_copy_constructible_v<typename Space::context>) return c;
    else return Space::make_context();  // (the backward pass then recomputes the memo's nodes)
  }

  template <class O, class C, class St>
  static void send(const O& output, const C& ct_given, std::size_t k, St& st) {
    using T = typename O::value_type;
    if constexpr (std::is_floating_point_v<T>) {
      auto ct = as_expr(ct_given);
      using Ct = decltype(ct);
      static_assert(require_cotangent_axes<visible_t<O>, visible_t<Ct>>::value);
      [&]<class... As>(axes<As...>) {
        [[maybe_unused]] auto check = [&]<class A>(std::type_identity<A>) {
          if (extent_of<A>(ct) != extent_of<A>(output))
            throw shape_error("nax: vjp: the cotangent of output " + std::to_string(k + 1) + " has extent " +
                              std::to_string(extent_of<A>(ct)) + " along '" + std::string(axis_name<A>()) +
                              "', the output has " + std::to_string(extent_of<A>(output)));
        };
        (check(std::type_identity<As>{}), ...);
      }(visible_t<O>{});
      backprop(output, make_map<fn::cast_to<T>>(std::move(ct)), st);
    }
  }

  static constexpr bool has_vectors = []<class... As>(std::type_identity<std::tuple<As...>>) {
    return (is_vector_argument_v<std::remove_cvref_t<As>> || ... || false);
  }(std::type_identity<decltype(L::all)>{});

  // One gradient tree per argument (leaf offsets: the earlier arguments' counts).
  template <class St, class Dynamic, std::size_t... P>
  auto gradients(St& st, Dynamic& dynamic, std::index_sequence<P...>) const {
    static constexpr std::size_t counts[] = {
        leaf_count_v<std::remove_cvref_t<std::tuple_element_t<P, decltype(s->all)>>>..., 0};
    auto tree_of = [&]<std::size_t Q>(std::integral_constant<std::size_t, Q>) {
      constexpr std::size_t offset = leaf_offset(counts, Q);
      if constexpr (is_vector_argument_v<std::remove_cvref_t<std::tuple_element_t<Q, decltype(s->all)>>>) {
        return std::get<Q>(dynamic).gradients(std::get<Q>(s->all));
      } else {
        return tree_transform_leaves_indexed(std::get<Q>(s->all), [&](const auto&, auto index) {
          return gradient_of(std::get<offset + decltype(index)::value>(st.vars));
        });
      }
    };
    return std::make_tuple(tree_of(std::integral_constant<std::size_t, P>{})...);
  }
};

template <class F>
struct vjp_of {
  F f;

  template <class... Args>
  auto operator()(Args... args) const {
    using Given = std::tuple<Args...>;
    auto given = std::make_shared<Given>(std::move(args)...);
    auto all = prepared_arguments<every_argument>(*given);
    auto record = std::make_shared<tape>(true);
    record->set_name("vjp");
    std::vector<std::size_t> tracked;
    auto vector_tracked = std::apply(
        [&](const auto&... a) { return std::vector<std::vector<std::size_t>>{track_vector_argument(*record, a)...}; }, all);
    auto out = [&] {
      tape_scope scope(*record);
      std::apply([&](const auto&... a) { (track_arguments(*record, a, tracked), ...); }, all);
      return tree_transform_leaves(std::apply(f, all), [](auto&& leaf) { return as_expr(std::forward<decltype(leaf)>(leaf)); });
    }();
    std::apply([&](const auto&... leaf) { record->finish_forward(leaf...); }, tree_leaves(out));
    tape_pause pause;
    using OutLeaves = decltype(tree_leaves(out));
    using Space = typename decltype([]<class... Ls>(std::type_identity<std::tuple<Ls...>>) {
      return std::type_identity<typename common_space<std::remove_cvref_t<Ls>...>::type>{};
    }(std::type_identity<OutLeaves>{}))::type;
    using Hout = decltype([]<class... Ls>(std::type_identity<std::tuple<Ls...>>) {
      return union_t<axes<>, hidden_t<Ls>...>{};
    }(std::type_identity<OutLeaves>{}));
    using L = linearized<Space, Given, decltype(all), decltype(out)>;
    auto s = std::make_shared<L>(L{std::move(given), std::move(all), std::move(record), std::move(tracked),
                                   std::move(vector_tracked), std::move(out), Space::make_context()});
    auto values = tree_transform_leaves(s->out, [&](const auto& leaf) { return value_in_context<Space>(leaf, s->ctx); });
    return std::make_pair(std::move(values), pullback<Space, Hout, L>{std::move(s)});
  }
};

}  // namespace detail::ad

// vjp(f)(args...) -> std::pair(outputs, pullback); pullback(cotangents) -> std::tuple of the
// arguments' cotangents (gradient trees), as jax.vjp. Every argument is differentiated.
template <class F>
auto vjp(F f) {
  return detail::ad::vjp_of<F>{std::move(f)};
}

}  // namespace nax
