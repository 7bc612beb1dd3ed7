// The pytree walks the optimizers share: trees zipped leaf by leaf with a run-time leaf index
// (depth-first, through std::vectors), a tree of per-leaf tuples split into trees, the
// run-time extent check of one leaf against its gradient and state, and the compile-time
// checks that name mismatched trees. Optim layer (above autodiff); see docs/training.md.
#pragma once
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../backend/host/evaluate.hpp"
#include "../expr/math.hpp"
#include "../expr/reduce.hpp"
#include "../transform/collectives.hpp"
#include "../tree/tree.hpp"

namespace nax::optim {
namespace detail {
using nax::detail::tree_kind;
using nax::detail::tree_kind_v;

// ---- compile-time checks (docs/compile_errors.md) -------------------------------------------

// The gradients (updates) and the parameters must be trees of one structure.
template <class Params, class Grads>
struct require_grads_match_params {
  static_assert(nax::detail::same_structure_v<Params, Grads>,
                "nax: optim: the gradients (Grads) do not have the structure of the parameters (Params): an "
                "optimizer's update takes one gradient per parameter leaf, in a tree of the same shape (the "
                "tree nax::grad returns for those parameters)");
  static constexpr bool value = true;
};

// The state given to update must be the one init(params) made (or the previous update's).
template <class Transform, class State, class Params>
struct require_state_of {
  static_assert(Transform::template state_matches<State, Params>(),
                "nax: optim: the state (State) is not this transform's state (Transform): pass the state that "
                "init(params) returned, or the one the previous update returned, of the same optimizer; a "
                "chain's state is the std::tuple of its parts' states, in order");
  static constexpr bool value = true;
};

// A moment tree of the state must have the parameters' structure.
template <class Params, class Moments>
struct require_moments_match_params {
  static_assert(nax::detail::same_structure_v<Params, Moments>,
                "nax: optim: a moment of the state (Moments) does not have the structure of the parameters "
                "(Params): the state was initialised with other parameters, or is in the std::tuple form of "
                "these (as_tuples, what an xmap step returns) while the parameters are structs; call init with "
                "these parameters, in the form they have here");
  static constexpr bool value = true;
};

// A mask (add_decayed_weights, adamw, lion) is a tree of bools shaped as the parameters.
template <class Params, class Mask>
struct require_mask_matches_params {
  static_assert(nax::detail::same_structure_v<Params, Mask>,
                "nax: optim: the weight-decay mask (Mask) is neither a tree of bools with the structure of the "
                "parameters (Params) nor a predicate on one parameter leaf: give one bool per parameter leaf "
                "(true: decay it), or a callable bool(const auto& leaf)");
  static constexpr bool value = true;
};

// update(grads, state) without params, for a transform that reads them.
template <class Transform>
struct require_params_given {
  static_assert(!Transform::needs_params,
                "nax: optim: this transform (Transform) reads the parameters (add_decayed_weights: adamw, lion, "
                "a chain holding it): call update(grads, state, params)");
  static constexpr bool value = true;
};

// Learning rates, weight decays: a number or a schedule (a callable from the int step count).
template <class Rate>
struct require_scalar_or_schedule {
  static_assert(std::is_arithmetic_v<Rate> || std::is_invocable_r_v<double, const Rate&, std::int64_t>,
                "nax: optim: a learning rate or weight decay (Rate) must be a number or a schedule: a callable "
                "taking the step count (an integer) and returning a number, as nax::optim::cosine_decay_schedule");
  static constexpr bool value = true;
};

// ---- trees -----------------------------------------------------------------------------------

// An element of a container with the container's value category (std::forward_like, C++23).
template <class Container, class E>
decltype(auto) forward_element(E& e) {
  if constexpr (std::is_lvalue_reference_v<Container>) return static_cast<const E&>(e);
  else return std::move(e);
}

// A Hana struct as the std::tuple of its members (what a struct becomes through xmap), applied
// throughout a tree; leaves as they are. Used to compare state shapes, and by as_tuples.
template <class X>
auto to_tuples(X&& x) {
  using D = std::remove_cvref_t<X>;
  if constexpr (tree_kind_v<D> == tree_kind::leaf || tree_kind_v<D> == tree_kind::not_a_tree) {
    return D(std::forward<X>(x));
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    using E = decltype(to_tuples(std::declval<typename D::value_type>()));
    std::vector<E> out;
    out.reserve(x.size());
    for (auto&& e : x) out.push_back(to_tuples(forward_element<X>(e)));
    return out;
  } else if constexpr (tree_kind_v<D> == tree_kind::std_array) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      using E = decltype(to_tuples(std::declval<typename D::value_type>()));
      return std::array<E, sizeof...(I)>{to_tuples(std::get<I>(std::forward<X>(x)))...};
    }(std::make_index_sequence<nax::detail::node_size_v<D>>{});
  } else if constexpr (tree_kind_v<D> == tree_kind::std_pair) {
    return std::pair(to_tuples(std::forward<X>(x).first), to_tuples(std::forward<X>(x).second));
  } else {  // struct, std::tuple, hana::tuple
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<decltype(to_tuples(nax::detail::tree_child<I>(std::forward<X>(x))))...>(
          to_tuples(nax::detail::tree_child<I>(std::forward<X>(x)))...);
    }(std::make_index_sequence<nax::detail::node_size_v<D>>{});
  }
}
template <class X>
using tuples_t = decltype(to_tuples(std::declval<X>()));

// Same structure once structs are read as tuples (a state that went through xmap).
template <class A, class B>
inline constexpr bool same_shape_v = nax::detail::same_structure_v<tuples_t<A>, tuples_t<B>>;

// Child I of a state node (a struct's member I, a tuple's element I), with the node's value category.
template <std::size_t I, class Node>
decltype(auto) child(Node&& node) {
  return nax::detail::tree_child<I>(std::forward<Node>(node));
}
template <class Node>
inline constexpr std::size_t children_v = nax::detail::node_size_v<std::remove_cvref_t<Node>>;

// A leaf as an expression reads it (an owning array's const view, anything else as it is).
template <class X>
decltype(auto) arg(const X& leaf) {
  return nax::detail::leaf_argument(leaf);
}

// Axes of a leaf (an Array, view or expression).
template <class X>
using axes_of = typename nax::detail::expr_t<const std::remove_cvref_t<X>&>::axes_type;

// "(batch = 4, in = 3)"
template <class X>
std::string describe_leaf(const X& leaf) {
  using L = axes_of<X>;
  const auto names = nax::detail::axis_name_table(L{});
  const auto extents = nax::detail::extents_by_name<L>(nax::detail::as_expr(leaf));
  std::string s = "(";
  for (std::size_t k = 0; k != L::size; ++k) {
    if (k) s.append(", ");
    s.append(names[k]).append(" = ").append(std::to_string(extents[k]));
  }
  return s.append(")");
}

// Leaf `index` of the gradients, parameters and a state moment: the same axis names (a compile
// error otherwise, naming them) and the same extents (nax::shape_error naming both).
template <class Ref, class X>
void check_leaf(std::size_t index, const char* ref_what, const Ref& ref, const char* what, const X& x) {
  if constexpr (tree_kind_v<X> == tree_kind::leaf && !std::is_arithmetic_v<X>) {
    using L = axes_of<Ref>;
    static_assert(nax::detail::require_same_axis_set<L, axes_of<X>>::value);
    if (nax::detail::extents_by_name<L>(nax::detail::as_expr(ref)) != nax::detail::extents_by_name<L>(nax::detail::as_expr(x)))
      throw shape_error("nax: optim: leaf " + std::to_string(index) + " (depth-first): the " + ref_what + " has axes " +
                        describe_leaf(ref) + ", the " + what + " " + describe_leaf(x));
  }
}

// The moments the traversal hands on: tree J of a transform's state (forwarded).
template <class Transform, class State, std::size_t... J>
auto forward_moments(State&& state, std::index_sequence<J...>) {
  return std::forward_as_tuple(Transform::template moment<J>(std::forward<State>(state))...);
}

// Splits a tree of per-leaf tuples (shaped as Shape, whose structure leads) into tree J.
template <std::size_t J, class Shape, class Zipped>
auto unzip(const Shape& shape, Zipped&& zipped) {
  auto pick = [](auto, const auto&, auto&& outputs) {
    return std::get<J>(std::forward<decltype(outputs)>(outputs));
  };
  return nax::detail::map_leaves<0>(pick, shape, std::forward<Zipped>(zipped));
}

// Sum of a tree of rank-0 terms, the static part as one expression, each std::vector's
// elements accumulated into an array (vectors are never inside xmap). An empty tree is
// `nothing`.
struct nothing {};
template <class A, class B>
auto add_terms(A&& a, B&& b) {
  if constexpr (std::is_same_v<std::remove_cvref_t<A>, nothing>)
    return std::forward<B>(b);
  else if constexpr (std::is_same_v<std::remove_cvref_t<B>, nothing>)
    return std::forward<A>(a);
  else
    return std::forward<A>(a) + std::forward<B>(b);
}
template <class Tree>
auto sum_terms(Tree&& tree) {
  using D = std::remove_cvref_t<Tree>;
  if constexpr (tree_kind_v<D> == tree_kind::leaf) {
    return D(std::forward<Tree>(tree));
  } else if constexpr (tree_kind_v<D> == tree_kind::std_vector) {
    using Term = decltype(sum_terms(std::declval<typename D::value_type>()));
    if constexpr (std::is_same_v<Term, nothing>) {
      return nothing{};
    } else {
      using E = nax::detail::expr_t<const Term&>;
      using Acc = typename nax::detail::eval_array<E>::type;
      Acc acc(std::array<index_t, 0>{});  // zero
      for (auto&& element : tree) acc = acc + sum_terms(forward_element<Tree>(element));
      return nax::detail::as_expr(std::move(acc));
    }
  } else {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      auto fold = [](auto&& self, auto&& acc, auto&& first, auto&&... rest) {
        auto next = add_terms(std::forward<decltype(acc)>(acc), sum_terms(std::forward<decltype(first)>(first)));
        if constexpr (sizeof...(rest) == 0) return next;
        else return self(self, std::move(next), std::forward<decltype(rest)>(rest)...);
      };
      if constexpr (sizeof...(I) == 0) return nothing{};
      else return fold(fold, nothing{}, nax::detail::tree_child<I>(std::forward<Tree>(tree))...);
    }(std::make_index_sequence<nax::detail::node_size_v<D>>{});
  }
}

}  // namespace detail

// Every Hana struct of a tree as the std::tuple of its members, recursively (leaves moved or
// copied). Through xmap a struct travels as that tuple (nax's rule for every pytree), so a state
// that a mapped step returns is the tuple form: start the loop from as_tuples(opt.init(params)).
template <class Tree>
auto as_tuples(Tree&& tree) {
  return detail::to_tuples(std::forward<Tree>(tree));
}

}  // namespace nax::optim
