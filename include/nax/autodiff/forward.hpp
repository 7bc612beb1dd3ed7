// Forward-mode rules (jvp.hpp): tangent(e, env) is the expression of e's tangent, built from
// the tangents of e's leaves (env: a differentiated argument's leaf has the user's tangent,
// any other leaf a zero that costs no memory), one rule per node type. The tangent of a node
// has the node's axes in the node's order and its mapped axes, so every rule can rebuild the
// node over its children's tangents; an elementwise chain's tangent stays one lazy expression
// (one fused pass where it is evaluated), a contraction's is two contractions, and partial
// derivatives read the same nodes as the value (evaluated in one context, their reductions and
// contractions come from the memo). Autodiff layer, beside rules.hpp (the reverse rules).
#pragma once
#include <stdexcept>
#include <string>

#include "rules.hpp"

namespace nax::detail::ad {

template <class E, class Env>
auto tangent(const E& e, const Env& env);

// Zero with e's axes, extents and mapped axes (a broadcast number: no memory, no pass).
template <class E>
auto zero_tangent(const E& e) {
  using T = typename E::value_type;
  return spread<typename E::axes_type, hidden_t<E>>(Scalar<T>{{}, T(0)}, e.extents());
}

[[noreturn]] inline void no_forward_rule(const char* what) {
  throw argument_error(std::string("nax: jvp: ") + what +
                       " lies between an argument with a tangent and the output; its forward-mode rule is not "
                       "implemented");
}

// Any other node (a generator: iota, random bits, ... has no tangent; others are not done).
template <class E, class Env>
auto tangent_rule(const E& e, const Env&) {
  if constexpr (!requires { typename E::functor; typename E::seed_type; })
    no_forward_rule("an operation without a forward-mode rule");
  return zero_tangent(e);
}

template <leaf_node L, class Env>
auto tangent_rule(const L& l, const Env& env) {
  return env.leaf_tangent(l);
}

template <class T, class Env>
auto tangent_rule(const Scalar<T>&, const Env&) {
  return Scalar<T>{{}, T(0)};
}

// t0 + t1 + ... (left to right, so the axes keep the first term's order).
template <class A>
auto sum_terms(A a) {
  return a;
}
template <class A, class B, class... R>
auto sum_terms(A a, B b, R... rest) {
  return sum_terms(make_map<fn::plus>(std::move(a), std::move(b)), std::move(rest)...);
}

// A child's tangent, or a zero with its axes for a non-floating child.
template <class C, class Env>
auto tangent_or_zero(const C& c, const Env& env) {
  if constexpr (std::is_floating_point_v<typename C::value_type>) return tangent(c, env);
  else return zero_tangent(c);
}

// Elementwise: the sum over floating children J of dF/dx_J * t_J (the linear functors and
// select directly).
template <class F, class... Cs, class Env>
auto tangent_rule(const Map<F, Cs...>& m, const Env& env) {
  constexpr bool any_floating = (std::is_floating_point_v<typename Cs::value_type> || ...);
  if constexpr (std::is_same_v<F, fn::stop_gradient> || !any_floating ||
                !std::is_floating_point_v<typename Map<F, Cs...>::value_type>) {  // isnan(x), x < y: no tangent
    return zero_tangent(m);
  } else if constexpr (fn::derivative_kind_v<F> == fn::derivative_kind::selection) {
    return make_map<fn::select>(get<0>(m.children), tangent_or_zero(get<1>(m.children), env),
                                tangent_or_zero(get<2>(m.children), env));
  } else if constexpr (fn::derivative_kind_v<F> == fn::derivative_kind::linear && sizeof...(Cs) == 1) {
    return make_map<F>(tangent(get<0>(m.children), env));  // negation, casts
  } else if constexpr (fn::derivative_kind_v<F> == fn::derivative_kind::linear) {
    return make_map<F>(tangent_or_zero(get<0>(m.children), env), tangent_or_zero(get<1>(m.children), env));
  } else {
    auto term = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
      using C = std::tuple_element_t<J, std::tuple<Cs...>>;
      if constexpr (!std::is_floating_point_v<typename C::value_type>) {
        return std::tuple<>{};
      } else if constexpr (fn::derivative_kind_v<F> == fn::derivative_kind::bilinear && J == 0) {  // (operands in the node's order)
        // (children named through J, so that the branch stays dependent: clang checks get<1> of a
        // unary node otherwise, in the discarded branch)
        return std::tuple(make_map<F>(tangent(get<J>(m.children), env), get<1 - J>(m.children)));
      } else if constexpr (fn::derivative_kind_v<F> == fn::derivative_kind::bilinear) {
        return std::tuple(make_map<F>(get<J - 1>(m.children), tangent(get<J>(m.children), env)));
      } else {
        static_assert(require_derivative<F, J>::value);
        auto d = m.children.apply([](const auto&... c) { return Map<fn::partial<F, J>, Cs...>(map_operands, c...); });
        return std::tuple(make_map<fn::multiplies>(std::move(d), tangent(get<J>(m.children), env)));
      }
    };
    auto terms = [&]<std::size_t... J>(std::index_sequence<J...>) {
      return std::tuple_cat(term(std::integral_constant<std::size_t, J>{})...);
    }(std::index_sequence_for<Cs...>{});
    return std::apply([](auto... t) { return sum_terms(std::move(t)...); }, std::move(terms));
  }
}

// Reductions: sum of the tangents; max/min: the tangents at the extremes, averaged over ties
// (as the reverse rule, and JAX); prod: the sum of each tangent times the product of the
// other elements (zeros handled as in the reverse rule).
template <class Op, class C, class... Rs, class Env>
auto tangent_rule(const Reduce<Op, C, Rs...>& r, const Env& env) {
  using CA = typename C::axes_type;
  using T = typename Reduce<Op, C, Rs...>::value_type;
  auto t = tangent(r.child, env);
  auto back = [&](auto e) { return spread<CA, hidden_t<C>>(std::move(e), r.child.extents()); };
  if constexpr (std::is_same_v<Op, sum_op>) {
    return Reduce<sum_op, decltype(t), Rs...>(std::move(t));
  } else if constexpr (std::is_same_v<Op, max_op> || std::is_same_v<Op, min_op>) {
    auto mask = make_map<fn::equal_to>(r.child, back(r));
    Reduce<sum_op, decltype(make_map<fn::cast_to<T>>(mask)), Rs...> ties(make_map<fn::cast_to<T>>(mask));
    auto picked = make_map<fn::select>(mask, std::move(t), Scalar<T>{{}, T(0)});
    return make_map<fn::divides>(Reduce<sum_op, decltype(picked), Rs...>(std::move(picked)), std::move(ties));
  } else {
    static_assert(std::is_same_v<Op, prod_op>);
    auto is_zero = make_map<fn::equal_to>(r.child, Scalar<T>{{}, T(0)});
    Reduce<sum_op, decltype(make_map<fn::cast_to<T>>(is_zero)), Rs...> zeros(make_map<fn::cast_to<T>>(is_zero));
    auto nonzero = make_map<fn::select>(is_zero, Scalar<T>{{}, T(1)}, r.child);
    Reduce<prod_op, decltype(nonzero), Rs...> p(nonzero);
    auto z = back(zeros);
    auto q = back(p);
    auto others = make_map<fn::select>(
        is_zero, make_map<fn::select>(make_map<fn::equal_to>(z, Scalar<T>{{}, T(1)}), q, Scalar<T>{{}, T(0)}),
        make_map<fn::select>(make_map<fn::equal_to>(z, Scalar<T>{{}, T(0)}), make_map<fn::divides>(q, r.child),
                             Scalar<T>{{}, T(0)}));
    auto each = make_map<fn::multiplies>(std::move(t), std::move(others));
    return Reduce<sum_op, decltype(each), Rs...>(std::move(each));
  }
}

// dot<K...>(a, b): dot(ta, b) + dot(a, tb).
template <class A, class B, class... K, class Env>
auto tangent_rule(const Contract<A, B, K...>& n, const Env& env) {
  constexpr bool fa = std::is_floating_point_v<typename A::value_type>;
  constexpr bool fb = std::is_floating_point_v<typename B::value_type>;
  auto left = [&] { auto ta = tangent(n.a, env); return Contract<decltype(ta), B, K...>(std::move(ta), n.b); };
  auto right = [&] { auto tb = tangent(n.b, env); return Contract<A, decltype(tb), K...>(n.a, std::move(tb)); };
  if constexpr (fa && fb) return make_map<fn::plus>(left(), right());
  else if constexpr (fa) return left();
  else if constexpr (fb) return right();
  else return zero_tangent(n);
}

// Relayouts (transpose, slice, rename, the maps' hide/reveal, ...): the same relayout of the
// child's tangent.
template <class C, class Kind, class Out, class H, class U, class Env>
auto tangent_rule(const Relayout<C, Kind, Out, H, U>& r, const Env& env) {
  if constexpr (!std::is_floating_point_v<typename C::value_type>) {
    return zero_tangent(r);
  } else {
    auto t = tangent(r.child, env);
    using TC = decltype(t);
    static_assert(std::is_same_v<typename TC::axes_type, typename C::axes_type>);
    Relayout<TC, Kind, Out, H, U> out{{}, std::move(t)};
    out.extents_ = r.extents_;
    out.coef = r.coef;
    out.offset = r.offset;
    return out;
  }
}

template <class C, class Outer, class Inner, class Merged, class Env>
auto tangent_rule(const Merge<C, Outer, Inner, Merged>& m, const Env& env) {
  auto t = tangent(m.child, env);
  return Merge<decltype(t), Outer, Inner, Merged>{{}, std::move(t), m.extents_};
}

template <class Axis, bool IsStack, class... Cs, class Env>
auto tangent_rule(const Join<Axis, IsStack, Cs...>& n, const Env& env) {
  return n.children.apply([&](const auto&... c) {
    return Join<Axis, IsStack, decltype(tangent(c, env))...>(tangent(c, env)...);
  });
}

// cumsum is linear: the same scan of the tangent. cummax and cummin pass on the tangent of the
// element each output came from. cumprod: dy_i = sum over j at or before i of
// (prod_{k <= i, k != j} x_k) t_j, without dividing by zero, in the pieces of the reverse rule
// (autodiff/rules_scan.hpp): y * cumsum(t / x) over the nonzero x, plus, for the first and the
// second zero of the line, y1 (y2) times that zero's tangent from its position on; a later
// zero's term has two zero factors and is 0 (exact to first order, as the reverse rule).
template <class Op, class C, class A, class Env>
auto tangent_rule(const Scan<Op, C, A>& s, const Env& env) {
  static_assert(ad::require_scan_rule<Op>::value);
  using T = typename C::value_type;
  if constexpr (std::is_same_v<Op, prod_op>) {
    auto t = tangent(s.child, env);
    auto z = cumprod_parts(s);
    auto zero = Scalar<T>{{}, T(0)};
    auto running = [&](auto e) { return Scan<sum_op, decltype(e), A>{{}, std::move(e), s.reverse}; };
    auto ratios = make_map<fn::select>(z.zero, zero, make_map<fn::divides>(t, z.divisor));
    return sum_terms(make_map<fn::multiplies>(s, running(std::move(ratios))),
                     make_map<fn::multiplies>(z.y1, running(make_map<fn::select>(z.first, t, zero))),
                     make_map<fn::multiplies>(z.y2, running(make_map<fn::select>(z.second, t, zero))));
  } else if constexpr (std::is_same_v<Op, sum_op>) {
    auto t = tangent(s.child, env);
    return Scan<sum_op, decltype(t), A>{{}, std::move(t), s.reverse};
  } else {
    auto source = stored(tangent(s.child, env));
    auto sources = running_extreme_sources(s);
    return Take<decltype(source), decltype(sources), A>(std::move(source), std::move(sources), index_mode::clip, T(0));
  }
}

// sort's values are x read at its permutation: the tangent read at the same positions.
template <class C, class A, sort_result R, class Env>
auto tangent_rule(const Sort<C, A, R>& s, const Env& env) {
  using T = typename C::value_type;
  auto source = stored(tangent(s.child, env));
  return make_take<A>(std::move(source), sort_permutation(s), index_mode::clip, T(0));
}

// Indexing is linear in the source and the updates: the same take (fill 0: a constant fill
// has no tangent) or scatter_add of the tangents, at the same indices.
template <class C, class Env>
auto tangent_rule(const Stored<C>& s, const Env& env) {
  return stored(tangent(s.child, env));
}
template <class X, class I, class A, class Env>
auto tangent_rule(const Take<X, I, A>& t, const Env& env) {
  using T = typename X::value_type;
  auto source = stored(tangent(t.a, env));
  return Take<decltype(source), I, A>(std::move(source), t.b, t.mode, T(0));
}
template <class Op, class X, class I, class U, class A, class Env>
auto tangent_rule(const Scatter<Op, X, I, U, A>& s, const Env& env) {
  if constexpr (!std::is_same_v<Op, scatter_add_op>) {
    no_forward_rule("scatter, scatter_max or scatter_min (only scatter_add has a derivative in nax)");
    return zero_tangent(s);
  } else {
    auto tx = tangent_or_zero(get<0>(s.children), env);
    auto tu = tangent_or_zero(get<2>(s.children), env);
    return Scatter<Op, decltype(tx), I, decltype(tu), A>(std::move(tx), get<1>(s.children), std::move(tu), s.mode);
  }
}

// Collectives are linear (psum, all_gather, psum_scatter, ppermute, all_to_all) or have no
// derivative (pmax, pmin: as in JAX): the tangent goes through the same collective.
template <class C, class Kind, class Axis, class Env>
auto tangent_rule(const CommCollective<C, Kind, Axis>& n, const Env& env) {
  if constexpr (!std::is_same_v<Kind, all_reduce_kind<sum_op>> && !std::is_same_v<Kind, all_gather_kind> &&
                !std::is_same_v<Kind, reduce_scatter_kind<sum_op>>)
    throw argument_error("nax: jvp: pmax or pmin lies between an argument with a tangent and the output; JAX defines "
                         "no derivative for them either");
  auto t = tangent(n.child, env);
  index_t axis_extent = 0;  // (the result's extent along Axis; unused by an all-reduce)
  if constexpr (resizes_axis_v<Kind>) axis_extent = n.extents()[index_of_v<Axis, typename C::axes_type>];
  return CommCollective<decltype(t), Kind, Axis>(std::move(t), n.comm, axis_extent, n.offset);
}

template <class C, class Axis, class Env>
auto tangent_rule(const Permute<C, Axis>& p, const Env& env) {
  auto t = tangent(p.child, env);
  return Permute<decltype(t), Axis>{{}, std::move(t), p.source, p.comm, p.offset};
}

template <class C, class N, class Split, class Concat, class Env>
auto tangent_rule(const AllToAll<C, N, Split, Concat>& a, const Env& env) {
  auto t = tangent(a.child, env);
  return AllToAll<decltype(t), N, Split, Concat>{{}, std::move(t), a.comm};
}

// The tangent of e (a floating-point node): its rule.
template <class E, class Env>
auto tangent(const E& e, const Env& env) {
  static_assert(std::is_floating_point_v<typename E::value_type>);
  return tangent_rule(e, env);
}

}  // namespace nax::detail::ad
