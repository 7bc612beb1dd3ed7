// vmap<N>(f): f applied to every member of axis N at once. Arguments that have axis N are
// mapped: f sees them with N hidden (still in the data, in hidden_type), and broadcasting by
// name carries N through every operation, so the whole mapped call is one fused program,
// fixed by the types at compile time. Outputs get N back as a visible axis (out_axes).
// Collectives over N (transform/collectives.hpp) read its extent from the axis environment.
#pragma once
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "../backend/host/evaluate.hpp"
#include "../tree/leaves.hpp"
#include "../tree/map.hpp"
#include "axis_env.hpp"
#include "collectives.hpp"
#include "extent_agreement.hpp"
#include "map_specs.hpp"
#include "retag.hpp"

namespace nax {
namespace detail {

// The name an outer mapped axis N takes while an inner map binds N again (shadowing).
template <class N>
struct shadowed_axis : axis_tag {
  static constexpr const char* axis_label() { return N::axis_label(); }
};

template <class N, class Spec, class Leaf>
constexpr bool leaf_is_mapped() {
  if constexpr (element<std::remove_cvref_t<Leaf>>) return false;
  else if constexpr (std::is_same_v<Spec, none_t>) return false;
  else if constexpr (std::is_same_v<Spec, mapped_t>) return contains_v<N, visible_t<expr_t<Leaf>>>;
  else return true;  // from<A>
}

template <class N, class Spec, class Leaf>
constexpr bool leaf_needs_change() {
  if constexpr (element<std::remove_cvref_t<Leaf>>) return false;
  else return leaf_is_mapped<N, Spec, Leaf>() || contains_v<N, hidden_t<expr_t<Leaf>>>;
}

template <class N, class Spec, class Arg>
constexpr bool argument_needs_change() {
  return any_leaf_type<Arg>([]<class Leaf>(std::type_identity<Leaf>) { return leaf_needs_change<N, Spec, Leaf>(); });
}

template <class N, class Leaf>
struct require_unmapped_argument_lacks_axis {
  static_assert(!contains_v<N, visible_t<expr_t<Leaf>>>,
                "nax: an argument that in_axes marks as not mapped (none) has an axis named like the "
                "mapped axis N; rename it, or map it");
  static constexpr bool value = true;
};

// The leaf as f sees it: a re-bound outer N renamed out of the way, then N hidden.
template <class N, class Spec, class Leaf>
auto mapped_leaf(Leaf&& leaf) {
  if constexpr (!leaf_needs_change<N, Spec, Leaf>()) {
    if constexpr (std::is_same_v<Spec, none_t> && !element<std::remove_cvref_t<Leaf>>)
      static_assert(require_unmapped_argument_lacks_axis<N, Leaf>::value);
    return as_expr(std::forward<Leaf>(leaf));
  } else {
    auto e = as_expr(std::forward<Leaf>(leaf));
    auto unshadowed = [&] {
      if constexpr (contains_v<N, hidden_t<decltype(e)>>) return rename_axis<N, shadowed_axis<N>>(std::move(e));
      else return std::move(e);
    }();
    using U = decltype(unshadowed);
    if constexpr (std::is_same_v<Spec, none_t>) {
      static_assert(require_unmapped_argument_lacks_axis<N, U>::value);
      return unshadowed;
    } else if constexpr (std::is_same_v<Spec, mapped_t>) {
      if constexpr (contains_v<N, visible_t<U>>) return hide_axis<N>(std::move(unshadowed));
      else return unshadowed;
    } else {
      using A = typename Spec::axis;
      static_assert(require_axis_present<A, visible_t<U>>::value);
      return hide_axis<N>(rename_axis<A, N>(std::move(unshadowed)));
    }
  }
}

// Whether no leaf of an unmapped argument carries the mapped axis N (a static check per leaf).
template <class N, class Spec, class Arg>
constexpr bool unmapped_argument_lacks_axis() {
  return every_leaf_type<Arg>([]<class Leaf>(std::type_identity<Leaf>) {
    if constexpr (!element<std::remove_cvref_t<Leaf>>) return require_unmapped_argument_lacks_axis<N, Leaf>::value;
    else return true;
  });
}

// The argument as f sees it: unchanged (same object) when nothing in it is mapped.
template <class N, class Spec, class Arg>
decltype(auto) mapped_argument(Arg&& arg) {
  // An unmapped argument passes through untouched, so check it here: it must not carry N.
  if constexpr (std::is_same_v<Spec, none_t>) static_assert(unmapped_argument_lacks_axis<N, Spec, Arg>());
  if constexpr (!argument_needs_change<N, Spec, Arg>())
    return std::forward<Arg>(arg);
  else
    return tree_transform_leaves(std::forward<Arg>(arg),
                                 [](auto&& leaf) { return mapped_leaf<N, Spec>(std::forward<decltype(leaf)>(leaf)); });
}

template <class N, class Visible, std::size_t P>
struct require_position_in_range {
  static_assert(P <= Visible::size,
                "nax: out_axes position out of range: the output has fewer visible axes (Visible) than the "
                "position asks for");
  static constexpr bool value = true;
};

template <class N, class Hidden>
struct require_replicated_output_not_mapped {
  static_assert(!contains_v<N, Hidden>,
                "nax: an output declared replicated varies over the mapped axis N; reduce it with a "
                "collective (psum, pmean, ...) or give it an out_axes position");
  static constexpr bool value = true;
};

template <class N, bool Shadowed>
struct require_no_shadowed_reveal {
  static_assert(!Shadowed,
                "nax: an inner vmap over N returns a value that varies over N while an enclosing map also binds N: "
                "the two axes would share one name; give the inner map another axis name, or reduce the output "
                "(psum, ...) and declare it out_axes(replicated)");
  static constexpr bool value = true;
};

// An output leaf of f: N resolved, revealed (or broadcast) at its position, shadowing undone.
template <class N, class Spec, class Leaf>
auto finish_leaf(Leaf&& leaf, index_t extent) {
  auto r = resolve_axis<N>(as_expr(std::forward<Leaf>(leaf)));
  using R = decltype(r);
  auto placed = [&] {
    if constexpr (std::is_same_v<Spec, replicated_t>) {
      static_assert(require_replicated_output_not_mapped<N, hidden_t<R>>::value);
      return std::move(r);
    } else {
      constexpr std::size_t P = Spec::position;
      static_assert(require_position_in_range<N, visible_t<R>, P>::value);
      if constexpr (contains_v<N, hidden_t<R>>) {
        static_assert(require_no_shadowed_reveal<N, contains_v<shadowed_axis<N>, typename R::axes_type>>::value);
        return reveal_axis<N, P>(std::move(r));
      } else {
        // An output that does not vary over N is broadcast along it (as jax.vmap does).
        using Out = concat_t<insert_at_t<visible_t<R>, P, N>, hidden_t<R>>;
        auto b = by_name_relayout<Out>(std::move(r));
        b.extents_ = [&]<class... As>(axes<As...>) {
          return std::array<index_t, Out::size>{(std::is_same_v<As, N> ? extent : extent_of<As>(b.child))...};
        }(Out{});
        return b;
      }
    }
  }();
  using P = decltype(placed);
  if constexpr (contains_v<shadowed_axis<N>, typename P::axes_type>) return rename_axis<shadowed_axis<N>, N>(std::move(placed));
  else return placed;
}

template <class N, class Spec, class Output>
auto finish_output(Output&& output, index_t extent) {
  return tree_transform_leaves(std::forward<Output>(output), [extent](auto&& leaf) {
    return finish_leaf<N, Spec>(std::forward<decltype(leaf)>(leaf), extent);
  });
}

// One out_axes spec per top-level output of a tuple or pair, or one for every output.
template <class N, class OutSpec, class Result>
auto finish_outputs(Result&& result, index_t extent) {
  using D = std::remove_cvref_t<Result>;
  if constexpr (is_std_tuple<D>::value || is_std_pair<D>::value) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple(finish_output<N, spec_at_t<OutSpec, I>>(std::get<I>(std::forward<Result>(result)), extent)...);
    }(std::make_index_sequence<std::tuple_size_v<D>>{});
  } else {
    return finish_output<N, spec_at_t<OutSpec, 0>>(std::forward<Result>(result), extent);
  }
}

template <class N, class Spec, class Leaf>
index_t leaf_mapped_extent(const Leaf& leaf) {
  if constexpr (std::is_same_v<Spec, mapped_t>) return extent_of<N>(as_expr(leaf));
  else return extent_of<typename Spec::axis>(as_expr(leaf));
}

// The extent of N: every mapped leaf must agree (transform/extent_agreement.hpp).
template <class N, class InSpec, class... Args>
index_t mapped_extent(std::optional<index_t> given, const Args&... args) {
  extent_agreement<N> agreement("vmap", given);
  auto visit_argument = [&]<std::size_t I>(std::integral_constant<std::size_t, I>, const auto& arg) {
    using Spec = spec_at_t<InSpec, I>;
    tree_visit_leaves([&](const auto& leaf) {
      if constexpr (leaf_is_mapped<N, Spec, decltype(leaf)>()) agreement.absorb(leaf_mapped_extent<N, Spec>(leaf), int(I) + 1);
    }, arg);
  };
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (visit_argument(std::integral_constant<std::size_t, I>{}, args), ...);
  }(std::index_sequence_for<Args...>{});
  return agreement.extent();
}

template <class N, class Spec, class Arg>
constexpr bool argument_mapped() {
  return any_leaf_type<Arg>([]<class Leaf>(std::type_identity<Leaf>) { return leaf_is_mapped<N, Spec, Leaf>(); });
}

template <class N, class InSpec, class... Args>
constexpr bool any_argument_mapped() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (argument_mapped<N, spec_at_t<InSpec, I>, Args>() || ... || false);
  }(std::index_sequence_for<Args...>{});
}

template <class N, bool Mapped, bool HasSize>
struct require_something_to_map {
  static_assert(Mapped || HasSize,
                "nax: vmap over N: no argument has axis N to map over and no map_size is given");
  static constexpr bool value = true;
};

template <class N, class F, class InSpec, class OutSpec, bool HasSize>
struct vmapped {
  F f;
  std::optional<index_t> size;

  // The mapped call, lazy: the result is an expression to assign or eval.
  template <class... Args>
  auto operator()(Args&&... args) const& {
    static_assert(require_something_to_map<N, any_argument_mapped<N, InSpec, Args...>(), HasSize>::value);
    const index_t extent = mapped_extent<N, InSpec>(size, args...);
    axis_scope scope({axis_key<N>(), extent, extent, 0, nullptr});
    auto result = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return f(mapped_argument<N, spec_at_t<InSpec, I>>(std::forward<Args>(args))...);
    }(std::index_sequence_for<Args...>{});
    return finish_outputs<N, OutSpec>(std::move(result), extent);
  }

  // On a temporary (vmap<N>(f)(x)) the lazy result would outlive f, and read the arrays f's
  // closure owns after they are gone; so when f has state and the result can be stored (it
  // has no axis an enclosing map still binds), it is evaluated here.
  template <class... Args>
  auto operator()(Args&&... args) && {
    auto lazy = std::as_const(*this)(std::forward<Args>(args)...);
    if constexpr (std::is_empty_v<F> || !storable_outputs<decltype(lazy)>()) return lazy;
    else return evaluate_outputs(std::move(lazy));
  }

 private:
  template <class Outputs>
  static constexpr bool storable_outputs() {
    return every_leaf_type<const Outputs&>([]<class Leaf>(std::type_identity<Leaf>) {
      using E = std::remove_cvref_t<Leaf>;
      if constexpr (element<E>) return true;
      else return hidden_t<expr_t<E>>::size == 0 && unbound_t<expr_t<E>>::size == 0;
    });
  }

  template <class Outputs>
  static auto evaluate_outputs(Outputs&& outputs) {
    auto evaluate = [](auto&& leaf) {
      if constexpr (element<std::remove_cvref_t<decltype(leaf)>>) return leaf;
      else return nax::eval(leaf);
    };
    return tree_transform_leaves(std::move(outputs), evaluate);  // a std::tuple of outputs is a tree node
  }
};

template <class X>
inline constexpr bool is_in_axes_v = false;
template <class... S>
inline constexpr bool is_in_axes_v<in_axes_t<S...>> = true;
template <class X>
inline constexpr bool is_out_axes_v = false;
template <class... S>
inline constexpr bool is_out_axes_v<out_axes_t<S...>> = true;

template <class Default, class... Options>
using in_spec_of = decltype(std::tuple_cat(std::conditional_t<is_in_axes_v<Options>, std::tuple<Options>, std::tuple<>>{}...,
                                           std::tuple<Default>{}));

}  // namespace detail

// vmap<N>(f, [in_axes(...)], [out_axes(...)], [map_size{n}]): f mapped over axis N.
template <class N, class F, class... Options>
auto vmap(F f, Options... options) {
  static_assert(axis<N>, "nax: vmap<N> needs an axis name declared with NAX_AXIS");
  using InSpec = std::tuple_element_t<0, detail::in_spec_of<in_axes_t<>, Options...>>;
  using OutSpec = std::tuple_element_t<0, decltype(std::tuple_cat(
      std::conditional_t<detail::is_out_axes_v<Options>, std::tuple<Options>, std::tuple<>>{}..., std::tuple<out_axes_t<>>{}))>;
  constexpr bool has_size = (std::is_same_v<Options, map_size> || ...);
  std::optional<index_t> size;
  auto take_size = [&](const auto& option) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(option)>, map_size>) size = option.extent;
  };
  (take_size(options), ...);
  (void)take_size;  // unused when there are no options
  return detail::vmapped<N, F, InSpec, OutSpec, has_size>{std::move(f), size};
}

}  // namespace nax
