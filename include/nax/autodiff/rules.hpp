// Reverse-mode rules, one per node type (the joins' in rules_join.hpp, the collectives' in
// rules_collective.hpp). backprop(node, ct, state) sends the cotangent ct of node to the
// children that depend on a variable, and at a variable's leaf adds it into the variable's
// gradient. Cotangents are nax expressions: an elementwise backward chain stays one lazy
// expression (one fused pass where it is consumed); the adjoint of a contraction is a
// contraction; reductions and contractions of the forward pass are found in the evaluation
// context's memo (same node id), so the backward pass never recomputes them.
#pragma once
#include <stdexcept>
#include <string>

#include "../backend/host/index.hpp"
#include "../core/view_slicing.hpp"
#include "../expr/partials.hpp"
#include "../mesh/communicator.hpp"
#include "../mesh/space_on_mesh.hpp"
#include "at_position.hpp"
#include "cotangent.hpp"
#include "tape.hpp"

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st);

[[noreturn]] inline void not_differentiable(const char* what) {
  throw argument_error(std::string("nax: grad: ") + what +
                       " lies between a differentiated argument and the output; its gradient is not implemented");
}

// A cotangent that two rules below read (both factors of a product, both operands of a
// contraction, both terms of a sum) is evaluated once into a temporary when computing it costs
// more than reading it: a transcendental partial (ct * (1 - tanh^2 z)), a reduction. Lazily it
// was computed once per reader: an MLP layer's ct * (1 - tanh^2 z) three times (packed for the
// two GEMMs, summed for the bias), 20% of bench_deep_mlp's step (docs/autodiff.md). Decided
// from the types alone (each child that may reach counts), so the rules below are instantiated
// once. Host memory only: on the device each temporary costs nvcc one more kernel per cotangent
// type, and the CUDA backend has not run on a GPU to measure the gain. Not under grad(grad(f)),
// whose sink differentiates cotangents as expressions, nor for a cotangent with unbound axes (a
// collective the map has not bound yet). One with mapped (hidden) axes, inside vmap or xmap, is
// evaluated with every axis visible and hidden again (the per-example half of
// tests/autodiff/nn_test.cpp's shared-cotangent case, and the GPT's tests, run that path).
template <class E>
struct costly_to_recompute : std::bool_constant<!leaf_node<E>> {};  // reductions, contractions, gathers, ...
template <class T>
struct costly_to_recompute<Scalar<T>> : std::false_type {};
template <class C, class Kind, class Out, class H, class U>
struct costly_to_recompute<Relayout<C, Kind, Out, H, U>> : costly_to_recompute<C> {};
template <class F, class... Cs>
struct costly_to_recompute<Map<F, Cs...>>
    : std::bool_constant<fn::derivative_kind_v<F> == fn::derivative_kind::by_partial ||
                         (costly_to_recompute<Cs>::value || ...)> {};

template <class C>
inline constexpr bool is_scalar_node_v = false;
template <class T>
inline constexpr bool is_scalar_node_v<Scalar<T>> = true;
// A child a cotangent may go to (floating point, not a constant).
template <class C>
inline constexpr std::size_t may_need_cotangent_v = std::is_floating_point_v<typename C::value_type> && !is_scalar_node_v<C>;

template <std::size_t Readers, class Ct, class St, class Body>
void with_shared_cotangent(const Ct& ct, St& st, Body&& body) {
  if constexpr (Readers >= 2 && std::is_same_v<typename St::space, host_space> && costly_to_recompute<Ct>::value &&
                std::is_same_v<unbound_t<Ct>, axes<>> && std::is_same_v<decltype(st.sink), no_sink>) {
    if constexpr (std::is_same_v<hidden_t<Ct>, axes<>>) {
      body(St::space::materialise(ct, st.ctx));
    } else {
      // Mapped axes: evaluated with every axis visible, then hidden again (as nax::eval inside
      // vmap does: backend/host/evaluate.hpp).
      using Axes = typename Ct::axes_type;
      auto whole = St::space::materialise(positional_relayout<identity_kind, Axes, Ct, axes<>, axes<>>(ct), st.ctx);
      body(positional_relayout<identity_kind, Axes, decltype(whole), hidden_t<Ct>, axes<>>(std::move(whole)));
    }
  } else {
    body(ct);
  }
}

// Any other node.
template <class E, class Ct, class St>
void rule(const E&, const Ct&, St&) {
  not_differentiable("an operation without a reverse-mode rule");
}

// take's cotangent, scatter_add<A>(zeros, idx, u), reaching a variable's gradient g of the
// same axes: the updates are added into g where they land (no array of zeros, no pass over
// the whole table; bench/take.cpp). False when it is not that, or its operands read g.
template <class Ct>
inline constexpr bool is_scatter_of_zeros_v = false;
template <class T, class K, class O, class H, class U2, class I, class U, class A>
inline constexpr bool is_scatter_of_zeros_v<Scatter<scatter_add_op, Relayout<Scalar<T>, K, O, H, U2>, I, U, A>> = true;

template <class Space, class G, class Ct, class Ctx>
bool scatter_into_gradient(G& g, const Ct& ct, Ctx& ctx) {
  using T = typename G::value_type;
  if constexpr (is_scatter_of_zeros_v<Ct>) {
    if constexpr (std::is_same_v<typename Ct::value_type, T> && same_set_v<typename Ct::axes_type, typename G::axes_type>) {
      if (get<0>(ct.children).child.value != T(0)) return false;
      auto out = Space::writable(g);
      auto idx = Space::materialise(get<1>(ct.children), ctx);
      auto upd = Space::materialise(cast_if_needed<T>(get<2>(ct.children)), ctx);
      if (views_overlap(out, idx.view) || views_overlap(out, upd.view)) return false;
      run_scatter<scatter_add_op>(make_scatter_plan<typename Ct::axis>(out, idx, upd, ct.mode), ctx);
      return true;
    }
  }
  return false;
}

// take<A>(x, i)'s cotangent (at_position.hpp) reaching a variable's gradient g: added into
// g's slice at A = i only. False when it is not that.
template <class Space, class G, class Ct, class Ctx>
bool add_at_position(G& g, const Ct& ct, Ctx& ctx) {
  if constexpr (at_position_traits<Ct>::value && std::is_same_v<Space, host_space>) {
    using P = at_position_traits<Ct>;
    using A = typename P::axis;
    using T = typename G::value_type;
    if (!P::holds(ct, extent_of<A>(g))) return false;
    const index_t i = P::position(ct);
    Space::assign(drop_axis<A>(Space::writable(g), i),
                  make_map<fn::plus>(leaf_of(drop_axis<A>(std::as_const(g).view(), i)),
                                     make_map<fn::cast_to<T>>(P::unspread(ct))),
                  ctx);
    return true;
  }
  return false;
}

// Adds ct into var's gradient when the leaf l is a use of var. A function of its own, so that
// the call below depends on the variable's type: clang instantiates the non-dependent
// statements of a generic lambda's body with the enclosing function, discarded branches
// included, and would build st.sink(ct) for every variable type.
template <class Space, class L, class V, class Ct, class St>
void add_to_gradient(const L& l, V& var, const Ct& ct, St& st, bool& matched) {
  using T = typename L::value_type;
  if (l.view.data() == var.data && l.view.extents() == var.extents && l.view.strides() == var.strides) {
    matched = true;
    auto& g = *var.grad;
    if constexpr (std::is_same_v<decltype(st.sink), no_sink>) {
      if (scatter_into_gradient<Space>(g, ct, st.ctx)) return;
      if (add_at_position<Space>(g, ct, st.ctx)) return;
    }
    Space::assign(Space::writable(g),
                  make_map<fn::plus>(leaf_of(std::as_const(g).view()), make_map<fn::cast_to<T>>(ct)), st.ctx);
    if constexpr (!std::is_same_v<decltype(st.sink), no_sink>) st.sink(ct);
  }
}

// A leaf (of either memory space): adds the cotangent into the gradient of each variable
// it is a use of; else, when f recorded evaluations, into the tracked buffer it is (tape.hpp).
template <leaf_node L, class Ct, class St>
void rule(const L& l, const Ct& ct, St& st) {
  using T = typename L::value_type;
  using Space = typename St::space;
  bool matched = false;
  [[maybe_unused]] auto add = [&](auto& var) {  // (unused when the only variables are the tape's)
    using V = std::remove_cvref_t<decltype(var)>;
    if constexpr (std::is_same_v<typename V::value_type, T> && std::is_same_v<typename V::var_axes, typename L::axes_type>)
      add_to_gradient<Space>(l, var, ct, st, matched);
  };
  std::apply([&](auto&... v) { (add(v), ...); }, st.vars);
  if (!matched && st.record) st.record->template accumulate<Space>(l, ct, st.ctx);
}

template <class F, std::size_t J>
struct require_derivative {
  static_assert(requires { sizeof(fn::partial<F, J>); },
                "nax: grad: no derivative of this elementwise function (F) with respect to argument J; "
                "grad(grad(f)) has second derivatives of nax's elementwise functions, not third ones");
  static constexpr bool value = true;
};

// stop_gradient: no cotangent goes through (reaches() is false for it too).
template <class C, class Ct, class St>
void rule(const Map<fn::stop_gradient, C>&, const Ct&, St&) {}

// Elementwise, by F's derivative_kind (expr/partials.hpp): child K receives ct * dF/dx_K; a
// linear F passes ct on (negated where its coefficient is -1), * multiplies it by the other
// factor, where sends it to the chosen branch.
template <class F, class... Cs, class Ct, class St>
void rule(const Map<F, Cs...>& m, const Ct& shared, St& st) {
  using T = typename Map<F, Cs...>::value_type;
  with_shared_cotangent<(may_need_cotangent_v<Cs> + ... + 0)>(shared, st, [&](const auto& ct) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    auto one = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
      using C = std::tuple_element_t<J, std::tuple<Cs...>>;
      if constexpr (std::is_floating_point_v<typename C::value_type>) {
        const C& child = get<J>(m.children);
        if (!reaches(child, st)) return;
        constexpr fn::derivative_kind kind = fn::derivative_kind_v<F>;
        if constexpr (kind == fn::derivative_kind::selection) {
          if constexpr (J == 1) backprop(child, make_map<fn::select>(get<0>(m.children), ct, Scalar<T>{{}, T(0)}), st);
          else if constexpr (J == 2) backprop(child, make_map<fn::select>(get<0>(m.children), Scalar<T>{{}, T(0)}, ct), st);
        } else if constexpr (kind == fn::derivative_kind::linear) {
          if constexpr (fn::linear_sign_v<F, J> > 0) backprop(child, ct, st);
          else backprop(child, make_map<fn::negate>(ct), st);
        } else if constexpr (kind == fn::derivative_kind::bilinear) {
          // ct times the other factor: the cotangent's type does not carry this child.
          backprop(child, make_map<fn::multiplies>(ct, get<1 - J>(m.children)), st);
        } else {
          static_assert(require_derivative<F, J>::value);
          auto d = m.children.apply([](const auto&... c) { return Map<fn::partial<F, J>, Cs...>(map_operands, c...); });
          backprop(child, make_map<fn::multiplies>(ct, std::move(d)), st);
        }
      }
    };
    (one(std::integral_constant<std::size_t, K>{}), ...);
  }(std::index_sequence_for<Cs...>{});
  });
}

template <class Op>
struct require_reduction_rule {
  static_assert(std::is_same_v<Op, prod_op>,
                "nax: grad: this reduction (Op) has no reverse-mode rule: add its case to the Reduce rule of "
                "autodiff/rules.hpp");
  static constexpr bool value = true;
};

// Reductions: sum broadcasts ct back; max/min send it to the extremes, split evenly between
// ties (as JAX); prod multiplies it by the product of the other elements (zeros handled).
template <class Op, class C, class... Rs, class Ct, class St>
void rule(const Reduce<Op, C, Rs...>& r, const Ct& ct_in, St& st) {
  using N = Reduce<Op, C, Rs...>;
  using CA = typename C::axes_type;
  using T = typename N::value_type;
  auto ct = collapse<typename N::axes_type, CA>(ct_in);
  auto back = [&](auto e) { return spread<CA, hidden_t<C>>(std::move(e), r.child.extents()); };
  if constexpr (std::is_same_v<Op, sum_op>) {
    backprop(r.child, back(std::move(ct)), st);
  } else if constexpr (std::is_same_v<Op, max_op> || std::is_same_v<Op, min_op>) {
    auto mask = make_map<fn::equal_to>(r.child, back(r));
    Reduce<sum_op, decltype(make_map<fn::cast_to<T>>(mask)), Rs...> ties(make_map<fn::cast_to<T>>(mask));
    auto share = make_map<fn::divides>(std::move(ct), std::move(ties));
    backprop(r.child, make_map<fn::select>(mask, back(std::move(share)), Scalar<T>{{}, T(0)}), st);
  } else {
    static_assert(require_reduction_rule<Op>::value);
    auto is_zero = make_map<fn::equal_to>(r.child, Scalar<T>{{}, T(0)});
    Reduce<sum_op, decltype(make_map<fn::cast_to<T>>(is_zero)), Rs...> zeros(make_map<fn::cast_to<T>>(is_zero));
    auto nonzero = make_map<fn::select>(is_zero, Scalar<T>{{}, T(1)}, r.child);
    Reduce<prod_op, decltype(nonzero), Rs...> p(nonzero);  // product of the nonzero elements
    auto z = back(zeros);
    auto q = back(p);
    // S0: the sum of the zero elements, 0 in value; its derivative picks the zeros out. Then the
    // product of the others, as functions of x (so that grad(grad) is exact too):
    //   x_j != 0: no zero: q / x_j; one zero: (q / x_j) * S0; more: 0;
    //   x_j == 0: one zero (this one): q; two: q * (S0 - x_j), the other zero times q; more: 0.
    // Division by x only where x != 0 (a zero divides 1 instead: no NaN in the branch `where`
    // drops, whose derivative grad(grad) would otherwise meet).
    auto zero_sum = back(Reduce<sum_op, decltype(make_map<fn::select>(is_zero, r.child, Scalar<T>{{}, T(0)})), Rs...>(
        make_map<fn::select>(is_zero, r.child, Scalar<T>{{}, T(0)})));
    auto count_is = [&](int k) { return make_map<fn::equal_to>(z, Scalar<T>{{}, T(k)}); };
    auto ratio = make_map<fn::divides>(q, nonzero);
    auto others = make_map<fn::select>(
        is_zero,
        make_map<fn::select>(count_is(1), q,
                             make_map<fn::select>(count_is(2),
                                                  make_map<fn::multiplies>(q, make_map<fn::minus>(zero_sum, r.child)),
                                                  Scalar<T>{{}, T(0)})),
        make_map<fn::select>(count_is(0), ratio,
                             make_map<fn::select>(count_is(1), make_map<fn::multiplies>(ratio, zero_sum),
                                                  Scalar<T>{{}, T(0)})));
    backprop(r.child, make_map<fn::multiplies>(back(std::move(ct)), std::move(others)), st);
  }
}

// dot<K...>(a, b): da = ct contracted with b over b's outer axes, db likewise with a.
template <class A, class B, class... K, class Ct, class St>
void rule(const Contract<A, B, K...>& n, const Ct& shared, St& st) {
  using N = Contract<A, B, K...>;
  with_shared_cotangent<may_need_cotangent_v<A> + may_need_cotangent_v<B>>(shared, st, [&](const auto& ct) {
    using C = std::remove_cvref_t<decltype(ct)>;
    auto adjoint = [&](const auto& other, auto outer) {
      return [&]<class... O>(axes<O...>) {
        using Other = std::remove_cvref_t<decltype(other)>;
        if constexpr (sizeof...(O) == 0) return make_map<fn::multiplies>(ct, other);
        else return Contract<C, Other, O...>(ct, other);
      }(outer);
    };
    if (reaches(n.a, st))
      backprop(n.a, adjoint(n.b, intersection_t<typename N::b_outer_axes, visible_t<B>>{}), st);
    if (reaches(n.b, st))
      backprop(n.b, adjoint(n.a, intersection_t<typename N::a_outer_axes, visible_t<A>>{}), st);
  });
}

// Relayouts. By-name ones (transpose, broadcast_to, the maps' hide/reveal) and renames are
// lazy: ct is summed over the broadcast axes and relaid out by name. The others (slice, split,
// a device's part of a mapped axis) scatter ct into zeros of the child's extents through the
// same affine index map.
template <class Kind>
struct rename_traits : std::false_type {};
template <class From, class To>
struct rename_traits<rename_kind<From, To>> : std::true_type {
  using from = From;
  using to = To;
};

template <class C, class Kind, class Out, class H, class U, class Ct, class St>
void scatter(const Relayout<C, Kind, Out, H, U>& r, const Ct& ct, St& st);

// Relayouts that only relabel (rename; transpose, broadcast_to and the maps' hide, reveal and
// mark, which change the axis list): always simple, so they do not instantiate scatter. Only
// a relayout with its child's own axes (slice, a device's part) or a split selects elements.
template <class C, class Kind, class Out, class H, class U>
inline constexpr bool relabels_only_v =
    rename_traits<Kind>::value ||
    (std::is_same_v<Kind, identity_kind> && (!std::is_same_v<Out, typename C::axes_type> ||
                                             !std::is_same_v<H, hidden_t<C>> || !std::is_same_v<U, unbound_t<C>>));

template <class Kind>
struct position_traits : std::false_type {};
template <class A>
struct position_traits<position_kind<A>> : std::true_type {
  using axis = A;
};

[[noreturn]] inline void relabelling_moved_elements() {
  throw std::logic_error("nax: grad: internal error: a relabelling relayout moves elements");
}

template <class C, class Kind, class Out, class H, class U, class Ct, class St>
void rule(const Relayout<C, Kind, Out, H, U>& r, const Ct& ct_in, St& st) {
  using CA = typename C::axes_type;
  using Hout = typename St::output_hidden;
  if constexpr (std::is_same_v<Kind, identity_kind> && Out::size == 0) {
    backprop(r.child, ct_in, st);  // a rank-0 retag (axis_size and the like)
  } else if constexpr (std::is_same_v<Kind, identity_kind>) {
    // Axes this node adds by broadcasting: summed (visible) or psum'd (mapped, unless the output has them).
    auto ct = fit<concat_t<CA, difference_t<typename Ct::axes_type, Out>>, Hout>(ct_in);
    if (simple_relayout(r)) {
      // take<X>'s cotangent stays in at_position's form below a relabelling (xmap's view of an
      // argument), so that the gradient it reaches is added into at X's slice only.
      using P = at_position_traits<decltype(ct)>;
      if constexpr (P::value) {
        using X = typename P::axis;
        if constexpr (contains_v<X, CA>) {
          const index_t extent = extent_of<X>(r.child);
          if (P::holds(ct, extent)) {
            backprop(r.child,
                     at_position<X>(spread<CA, hidden_t<C>>(P::unspread(ct), r.child.extents()), extent, P::position(ct)),
                     st);
            return;
          }
        }
      }
      backprop(r.child, spread<CA, hidden_t<C>>(std::move(ct), r.child.extents()), st);
      return;
    }
    if constexpr (relabels_only_v<C, Kind, Out, H, U>) relabelling_moved_elements();
    else scatter(r, std::move(ct), st);
  } else if constexpr (position_traits<Kind>::value) {
    // take<A>(x, i) with a C++ index: ct spread back over A and kept at position i only, as a
    // lazy select (fused into what reads it, and differentiated again by grad(grad(f))).
    using A = typename position_traits<Kind>::axis;
    constexpr std::size_t a = index_of_v<A, CA>;
    auto ct = fit<concat_t<CA, difference_t<typename Ct::axes_type, Out>>, Hout>(ct_in);
    backprop(r.child,
             at_position<A>(spread<CA, hidden_t<C>>(std::move(ct), r.child.extents()), r.child.extents()[a], r.offset[a]),
             st);
  } else if constexpr (rename_traits<Kind>::value) {
    // A ct varying over an output's mapped axis that the child names too (all_gather renames
    // the gathered axis away) is psum'd over it first, so the two uses of the name do not meet.
    auto ct = collapse<Out, CA>(ct_in);
    if (!simple_relayout(r)) relabelling_moved_elements();
    backprop(r.child, rename_axis<typename rename_traits<Kind>::to, typename rename_traits<Kind>::from>(std::move(ct)),
             st);
  } else {
    scatter(r, ct_in, st);
  }
}

// A device's part of a mapped axis X (psum_scatter of a value that does not vary over X):
// the child holds every member of X, the same on each device, so the cotangent z scattered
// from this device's part is summed over the devices (an all-gather of their parts).
// z lives in the program's memory space (device memory for nax::cuda arrays), so the space
// hands it to the communicator (staged through the host where the communicator needs that).
template <class X, class Space, class R, class Z>
void sum_over_devices(const R& r, Z& z) {
  if (extent_of<X>(r) < extent_of<X>(r.child))
    if (communicator* comm = binding_of<X>().comm) checked_space_on_mesh_t<Space>::sum_over_members(*comm, z);
}

template <class C, class Kind, class Out, class H, class U, class Ct, class St>
void scatter(const Relayout<C, Kind, Out, H, U>& r, const Ct& ct, St& st) {
  // The cotangent is written into memory here: under grad(grad(f)) it would reach the inner
  // variable as a constant, and the second derivative would silently miss this path.
  if constexpr (!std::is_same_v<decltype(st.sink), no_sink>)
    throw argument_error(
        "nax: grad(grad(f)): a slice, split or psum_scatter of a replicated value lies between the inner variable and the "
        "output; its second derivative is not implemented (its first derivative is scattered into memory)");
  using CA = typename C::axes_type;
  using T = typename C::value_type;
  using CtAxes = typename Ct::axes_type;
  using Extra = difference_t<CtAxes, Out>;  // the output's mapped axes
  using ZAxes = concat_t<CA, Extra>;
  std::array<index_t, ZAxes::size> zext{};
  for (std::size_t j = 0; j != CA::size; ++j) zext[j] = r.child.extents()[j];
  [&]<class... Xs>(axes<Xs...>) {
    std::size_t k = CA::size;
    ((zext[k++] = extent_of<Xs>(ct)), ...);
  }(Extra{});
  using Space = typename St::space;
  auto z = std::make_shared<typename Space::template array<T, ZAxes>>(zext);
  const auto zs = z->strides();
  index_t base = 0;
  for (std::size_t j = 0; j != CA::size; ++j) base += zs[j] * r.offset[j];
  std::array<index_t, CtAxes::size> vext{}, vstr{};
  [&]<class... Vs>(axes<Vs...>) {
    std::size_t q = 0;
    auto one = [&]<class V>(std::type_identity<V>) {
      vext[q] = extent_of<V>(ct);
      if constexpr (contains_v<V, Extra>) {
        vstr[q] = zs[index_of_v<V, ZAxes>];
      } else {
        constexpr std::size_t k = index_of_v<V, Out>;
        index_t s = 0;
        for (std::size_t j = 0; j != CA::size; ++j) s += zs[j] * r.coef[j][k];
        vstr[q] = s;
      }
      ++q;
    };
    (one(std::type_identity<Vs>{}), ...);
  }(CtAxes{});
  view_for_t<T, CtAxes> view(z->data() + base, vext, vstr);
  Space::assign(view, make_map<fn::cast_to<T>>(ct), st.ctx);
  [&]<class... Xs>(axes<Xs...>) { (sum_over_devices<Xs, Space>(r, *z), ...); }(intersection_t<hidden_t<C>, Out>{});
  auto leaf = leaf_of(std::as_const(*z).view(), z);
  backprop(r.child, positional_relayout<identity_kind, ZAxes, decltype(leaf), union_t<hidden_t<C>, Extra>>(leaf), st);
}

}  // namespace nax::detail::ad

#include "rules_collective.hpp"
#include "rules_index.hpp"
#include "rules_join.hpp"
#include "rules_scan.hpp"
#include "rules_sort.hpp"

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st) {
  if constexpr (std::is_floating_point_v<typename E::value_type>) {
    if (!reaches(e, st)) return;
    rule(e, fit<typename E::axes_type, typename St::output_hidden>(std::move(ct)), st);
  }
}

}  // namespace nax::detail::ad
