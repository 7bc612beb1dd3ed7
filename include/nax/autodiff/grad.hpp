// nax::grad, nax::grad<argnums...>, nax::value_and_grad: reverse-mode gradients of a function
// returning a rank-0 expression, with respect to arguments that are Arrays or pytrees of
// Arrays (Hana structs, tuples). f is called once with the user's arguments; the expression
// it returns is evaluated (the value), then the rules of rules.hpp send the cotangent 1 back
// through it, in the same evaluation context (reductions and contractions computed once).
// Gradients have the structure of the differentiated arguments. Inside vmap/xmap/pmap, when
// the output varies over a mapped axis, each member has its own gradient (vmap(grad(f))
// gives per-example gradients); a mapped axis the output does not vary over is summed over
// its members where it meets a replicated input (so the gradient of pmean of the members'
// losses is the gradient of the mean loss, as in JAX).
#pragma once
#include <tuple>
#include <utility>

#include "record.hpp"

namespace nax {
namespace detail::ad {

template <class OutputAxes>
struct require_scalar_output {
  static_assert(OutputAxes::size == 0,
                "nax: grad needs f to return a rank-0 value (a scalar loss), but f's result has the axes "
                "OutputAxes; reduce them first, e.g. with nax::sum or nax::mean");
  static constexpr bool value = true;
};
template <class T>
struct require_floating_output {
  static_assert(std::is_floating_point_v<T>,
                "nax: grad needs f to return a floating-point value; f's result has the element type T");
  static constexpr bool value = true;
};
template <std::size_t Argnum, std::size_t ArgumentCount>
struct require_argnum_in_range {
  static_assert(Argnum < ArgumentCount,
                "nax: grad<argnums...>: an argnum (Argnum) is not the position of an argument; f was called "
                "with ArgumentCount arguments, numbered from 0");
  static constexpr bool value = true;
};
template <std::size_t... Argnums>
struct require_unique_argnums {
  static constexpr bool unique() {
    std::size_t a[] = {Argnums...};
    for (std::size_t i = 0; i != sizeof...(Argnums); ++i)
      for (std::size_t j = i + 1; j < sizeof...(Argnums); ++j)
        if (a[i] == a[j]) return false;
    return true;
  }
  static_assert(unique(), "nax: grad<argnums...>: an argument position is listed twice (Argnums)");
  static constexpr bool value = true;
};

// A variable's gradient as the user gets it: an Array; or, when it varies over mapped axes
// (per-member gradients inside a map), an expression over an owned array with them mapped.
template <class V>
auto gradient_of(V& v) {
  using G = typename V::grad_axes;
  using Hidden = union_t<typename V::var_hidden, typename V::extra_axes>;
  if constexpr (Hidden::size == 0) {
    return std::move(*v.grad);
  } else {
    auto leaf = leaf_of(std::as_const(*v.grad).view(), v.grad);
    return positional_relayout<identity_kind, G, decltype(leaf), Hidden>(std::move(leaf));
  }
}

template <class Out, class Space, class L>
auto value_of(const L& leaf) {
  using T = typename Out::value_type;
  if constexpr (hidden_t<Out>::size == 0) {
    return Space::template scalar<T>(leaf);
  } else {
    return positional_relayout<identity_kind, typename Out::axes_type, L, hidden_t<Out>>(leaf);
  }
}

// The storage of each leaf of a differentiated argument, tracked by the tape (indices appended
// to `tracked`, in variables_of's order).
template <class Tree>
void track_arguments(tape& record, const Tree& tree, std::vector<std::size_t>& tracked) {
  if constexpr (!is_vector_argument_v<Tree>)
    std::apply([&](const auto&... leaf) { (tracked.push_back(record.track_argument(argument_view(leaf))), ...); },
               tree_leaves(tree));
}

// The gradients of a differentiated std::vector of pytrees of arrays (a run-time number of
// layers): every leaf of each element is tracked by the tape before f runs (track); once f
// has returned (its output's mapped axes Hout are known), one gradient per leaf is linked to
// it (the constructor): a variable as a static argument's leaf has (variables.hpp), with the
// output's mapped axes the leaf lacks (per-member gradients inside vmap/xmap). The tape's
// leaf rule adds into it wherever the element's leaf is read, in f's result or in a recorded
// evaluation. The gradient is a std::vector of the elements' gradient trees, each leaf as
// gradient_of gives a static argument's.
template <class Elem, class Leaves = decltype(tree_leaves(std::declval<const Elem&>()))>
struct vector_leaves;
template <class Elem, class... Ls>
struct vector_leaves<Elem, std::tuple<Ls...>> {
  // The tape's indices of every leaf of every element, in order.
  static std::vector<std::size_t> track(tape& record, const std::vector<Elem>& elements) {
    std::vector<std::size_t> tracked;
    tracked.reserve(elements.size() * sizeof...(Ls));
    for (const Elem& e : elements)
      std::apply([&](const auto&... leaf) { (tracked.push_back(record.track_argument(argument_view(leaf))), ...); },
                 tree_leaves(e));
    return tracked;
  }
  template <class Hout, class Space, class Out>
  using variables = std::tuple<decltype(variable_of_leaf<Hout, Space>(std::declval<const Ls&>(), std::declval<const Out&>()))...>;
};

template <class Hout, class Space, class Elem, class Out>
struct vector_gradients {
  using variables = typename vector_leaves<Elem>::template variables<Hout, Space, Out>;
  std::vector<variables> vars;

  vector_gradients(tape& record, const std::vector<Elem>& elements, const std::vector<std::size_t>& tracked,
                   const Out& out) {
    vars.reserve(elements.size());
    constexpr std::size_t leaves = std::tuple_size_v<variables>;  // (per element)
    for (std::size_t i = 0; i != elements.size(); ++i)
      vars.push_back(std::apply(
          [&](const auto&... leaf) {
            return [&]<std::size_t... K>(std::index_sequence<K...>) {
              return variables{link_leaf(record, leaf, tracked[i * leaves + K], out)...};
            }(std::index_sequence_for<decltype(leaf)...>{});
          },
          tree_leaves(elements[i])));
  }
  template <class Leaf>
  static auto link_leaf(tape& record, const Leaf& leaf, std::size_t index, const Out& out) {
    auto v = variable_of_leaf<Hout, Space>(leaf, out);
    using V = decltype(v);
    record.template link_argument<Space, typename V::value_type, typename V::var_axes, typename V::extra_axes>(index, v.grad);
    return v;
  }
  auto gradients(const std::vector<Elem>& elements) {
    auto take = [&](std::size_t i) {
      return [&, i](const auto&, auto index) { return gradient_of(std::get<decltype(index)::value>(vars[i])); };
    };
    std::vector<decltype(tree_transform_leaves_indexed(elements[0], take(0)))> result;
    result.reserve(elements.size());
    for (std::size_t i = 0; i != elements.size(); ++i) result.push_back(tree_transform_leaves_indexed(elements[i], take(i)));
    return result;
  }
};
struct no_vector_gradients {};

// A std::vector argument's leaves tracked (nothing for another argument), then, after f, their
// gradients linked (out: f's output, or anything extent_of reads the output's mapped axes from).
template <class Arg>
std::vector<std::size_t> track_vector_argument(tape& record, const Arg& arg) {
  if constexpr (is_vector_argument_v<Arg>) return vector_leaves<typename Arg::value_type>::track(record, arg);
  else return {};
}
template <class Hout, class Space, class Arg, class Out>
auto link_vector_argument(tape& record, const Arg& arg, const std::vector<std::size_t>& tracked, const Out& out) {
  if constexpr (is_vector_argument_v<Arg>)
    return vector_gradients<Hout, Space, typename Arg::value_type, Out>(record, arg, tracked, out);
  else return no_vector_gradients{};
}
// Each variable's gradient is where the recorded evaluations' backward passes add into its
// argument's cotangent, per member where it has the output's mapped axes (tape.hpp).
template <class Space, class Vars>
void link_arguments(tape& record, const std::vector<std::size_t>& tracked, const Vars& vars) {
  std::size_t i = 0;
  std::apply(
      [&](const auto&... v) {
        [[maybe_unused]] auto link = [&](const auto& var) {  // (no variables: a std::vector argument)
          using V = std::remove_cvref_t<decltype(var)>;
          record.template link_argument<Space, typename V::value_type, typename V::var_axes, typename V::extra_axes>(
              tracked[i], var.grad);
          ++i;
        };
        (link(v), ...);
      },
      vars);
}

// The index of argument p's first leaf among all differentiated leaves.
constexpr std::size_t leaf_offset(const std::size_t* counts, std::size_t p) {
  std::size_t o = 0;
  for (std::size_t q = 0; q < p; ++q) o += counts[q];
  return o;
}

template <bool WithValue, class F, std::size_t... Argnums>
struct differentiated;

template <class F>
struct grad_parts : std::false_type {};
template <class F, std::size_t... Inner>
struct grad_parts<differentiated<false, F, Inner...>> : std::true_type {
  using function = F;
  static constexpr std::size_t argnum = [] {
    static_assert(sizeof...(Inner) <= 1,
                  "nax: grad(grad<argnums...>(f)): the inner grad must differentiate one argument (its gradient "
                  "is the outer function's scalar value)");
    if constexpr (sizeof...(Inner) == 0) return std::size_t{0};
    else return (Inner + ...);
  }();
};

template <class V>
struct require_scalar_inner_variable {
  static_assert(difference_t<typename V::var_axes, typename V::var_hidden>::size == 0,
                "nax: grad(grad(f)): f's differentiated argument must be one scalar (a rank-0 array, or one "
                "element of a vmap): the inner gradient is the outer function's value, and grad needs a scalar; "
                "for many points, vmap the second derivative");
  static constexpr bool value = true;
};
template <class F>
struct require_second_order_only {
  static_assert(!grad_parts<F>::value, "nax: grad(grad(grad(f))): third and higher derivatives are not supported");
  static constexpr bool value = true;
};

template <bool WithValue, std::size_t... Argnums, class F, class... Args>
auto differentiate_second(const F& f, const Args&... args);

template <bool WithValue, std::size_t... Argnums, class F, class... Args>
auto differentiate(const F& f, const Args&... args) {
  if constexpr (grad_parts<F>::value) return differentiate_second<WithValue, Argnums...>(f, args...);
  else {
  static_assert((require_argnum_in_range<Argnums, sizeof...(Args)>::value && ...));
  static_assert(require_unique_argnums<Argnums...>::value);
  auto given = std::forward_as_tuple(args...);
  auto all = prepared_arguments<arguments_chosen<Argnums...>>(given);
  // f runs with a tape (tape.hpp): its evaluations that read the arguments are recorded.
  tape record(true);
  std::vector<std::size_t> tracked;
  const std::vector<std::size_t> vector_tracked[] = {track_vector_argument(record, std::get<Argnums>(all))...};
  constexpr bool has_vectors = (is_vector_argument_v<std::remove_cvref_t<decltype(std::get<Argnums>(all))>> || ...);
  auto out = [&] {
    tape_scope scope(record);
    (track_arguments(record, std::get<Argnums>(all), tracked), ...);
    return as_expr(std::apply(f, all));
  }();
  record.finish_forward(out);
  tape_pause pause;  // (the backward pass's arrays are no enclosing grad's business)
  using Out = decltype(out);
  static_assert(require_scalar_output<visible_t<Out>>::value);
  static_assert(require_floating_output<typename Out::value_type>::value);
  using T = typename Out::value_type;
  using Hout = hidden_t<Out>;
  using Space = space_of_t<Out>;
  auto vars = std::tuple_cat(variables_of<Hout, Space>(std::get<Argnums>(all), out)...);
  state<Space, Hout, decltype(vars)> st{Space::make_context(), std::move(vars)};
  auto dynamic = [&]<std::size_t... P>(std::index_sequence<P...>) {
    return std::make_tuple(link_vector_argument<Hout, Space>(record, std::get<Argnums>(all), vector_tracked[P], out)...);
  }(std::make_index_sequence<sizeof...(Argnums)>{});
  if (record.has_entries() || has_vectors) {
    link_arguments<Space>(record, tracked, st.vars);
    record.set_output_mapped(Hout{}, out);
    st.record = &record;
  }
  auto value = Space::materialise(out, st.ctx);
  backprop(out, Scalar<T>{{}, T(1)}, st);
  if (record.has_entries()) record.run_backward();

  // The gradients, rebuilt with each argument's structure (leaf offsets: earlier arguments' counts).
  static constexpr std::size_t counts[] = {leaf_count_v<std::remove_cvref_t<decltype(std::get<Argnums>(all))>>..., 0};
  auto tree_of = [&]<std::size_t P>(std::integral_constant<std::size_t, P>) {
    constexpr std::size_t offset = leaf_offset(counts, P);
    constexpr std::size_t argnum = std::get<P>(std::array<std::size_t, sizeof...(Argnums)>{Argnums...});
    if constexpr (is_vector_argument_v<std::remove_cvref_t<decltype(std::get<argnum>(all))>>) {
      return std::get<P>(dynamic).gradients(std::get<argnum>(all));
    } else {
      return tree_transform_leaves_indexed(std::get<argnum>(all), [&](const auto&, auto index) {
        return gradient_of(std::get<offset + decltype(index)::value>(st.vars));
      });
    }
  };
  auto grads = [&]<std::size_t... P>(std::index_sequence<P...>) {
    if constexpr (sizeof...(P) == 1) return tree_of(std::integral_constant<std::size_t, 0>{});
    else return std::make_tuple(tree_of(std::integral_constant<std::size_t, P>{})...);
  }(std::make_index_sequence<sizeof...(Argnums)>{});
  if constexpr (WithValue) return std::make_tuple(value_of<Out, Space>(value), std::move(grads));
  else return grads;
  }
}

// grad(grad(f)) (and value_and_grad(grad(f)), grad<i>(grad(f))): f is called once. The inner
// backward pass runs as usual; each cotangent that reaches a use of the inner variable (a
// sum of these is the inner gradient, the outer function's value) is differentiated at
// once, with cotangent 1, into the outer variables: d/dx of df/dx. Its nodes are
// partial<F, J> functors, whose derivatives are the second partials of expr/partials.hpp.
template <bool WithValue, std::size_t... OuterArgnums, class F, class... Args>
auto differentiate_second(const F& inner_grad, const Args&... args) {
  using G = typename grad_parts<F>::function;
  static_assert(require_second_order_only<G>::value);
  constexpr std::size_t inner = grad_parts<F>::argnum;
  static_assert(require_argnum_in_range<inner, sizeof...(Args)>::value);
  {
    static_assert((require_argnum_in_range<OuterArgnums, sizeof...(Args)>::value && ...));
    static_assert(require_unique_argnums<OuterArgnums...>::value);
    auto given = std::forward_as_tuple(args...);
    // Differentiated by either grad: prepared (owned when not Arrays) once, seen by both.
    auto all = prepared_arguments<arguments_chosen<inner, OuterArgnums...>>(given);
    // The tape only guards (raw reads, evaluations): grad(grad(f)) records no evaluations yet.
    tape record(false);
    std::vector<std::size_t> tracked;
    auto out = [&] {
      tape_scope scope(record);
      track_arguments(record, std::get<inner>(all), tracked);
      (track_arguments(record, std::get<OuterArgnums>(all), tracked), ...);
      return as_expr(std::apply(inner_grad.f, all));
    }();
    record.finish_forward(out);
    tape_pause pause;
    using Out = decltype(out);
    static_assert(require_scalar_output<visible_t<Out>>::value);
    static_assert(require_floating_output<typename Out::value_type>::value);
    using T = typename Out::value_type;
    using Hout = hidden_t<Out>;
    using Space = space_of_t<Out>;
    auto inner_vars = variables_of<Hout, Space>(std::get<inner>(all), out);
    static_assert(std::tuple_size_v<decltype(inner_vars)> == 1,
                  "nax: grad(grad(f)): f's differentiated argument must be one array, not a pytree of several");
    static_assert(require_scalar_inner_variable<std::tuple_element_t<0, decltype(inner_vars)>>::value);
    auto outer_vars = std::tuple_cat(variables_of<Hout, Space>(std::get<OuterArgnums>(all), out)...);
    state<Space, Hout, decltype(outer_vars)> outer_st{Space::make_context(), std::move(outer_vars)};
    auto second = [&outer_st](const auto& ct) { backprop(ct, Scalar<T>{{}, T(1)}, outer_st); };
    state<Space, Hout, decltype(inner_vars), decltype(second)> inner_st{Space::make_context(), std::move(inner_vars),
                                                                         second};
    Space::materialise(out, inner_st.ctx);
    backprop(out, Scalar<T>{{}, T(1)}, inner_st);

    static constexpr std::size_t counts[] = {
        leaf_count_v<std::remove_cvref_t<decltype(std::get<OuterArgnums>(all))>>..., 0};
    auto tree_of = [&]<std::size_t P>(std::integral_constant<std::size_t, P>) {
      constexpr std::size_t offset = leaf_offset(counts, P);
      constexpr std::size_t argnum = std::get<P>(std::array<std::size_t, sizeof...(OuterArgnums)>{OuterArgnums...});
      return tree_transform_leaves_indexed(std::get<argnum>(all), [&](const auto&, auto index) {
        return gradient_of(std::get<offset + decltype(index)::value>(outer_st.vars));
      });
    };
    auto grads = [&]<std::size_t... P>(std::index_sequence<P...>) {
      if constexpr (sizeof...(P) == 1) return tree_of(std::integral_constant<std::size_t, 0>{});
      else return std::make_tuple(tree_of(std::integral_constant<std::size_t, P>{})...);
    }(std::make_index_sequence<sizeof...(OuterArgnums)>{});
    if constexpr (WithValue) return std::make_tuple(gradient_of(std::get<0>(inner_st.vars)), std::move(grads));
    else return grads;
  }
}

template <bool WithValue, class F, std::size_t... Argnums>
struct differentiated {
  F f;  // (grad_parts reads it: grad(grad(f)))
  template <class... Args>
  auto operator()(const Args&... args) const {
    if constexpr (sizeof...(Argnums) == 0) return differentiate<WithValue, 0>(f, args...);
    else return differentiate<WithValue, Argnums...>(f, args...);
  }
};

}  // namespace detail::ad

// grad(f): the gradient of f (returning a rank-0 floating expression) with respect to its
// first argument; grad<i, j>(f): with respect to arguments i and j (a std::tuple of gradients).
template <std::size_t... Argnums, class F>
auto grad(F f) {
  return detail::ad::differentiated<false, F, Argnums...>{std::move(f)};
}

// value_and_grad(f)(args...) -> std::tuple(value, gradients): the value is a rank-0 Array (or,
// inside a map where it varies per member, a mapped expression); gradients as grad's.
template <std::size_t... Argnums, class F>
auto value_and_grad(F f) {
  return detail::ad::differentiated<true, F, Argnums...>{std::move(f)};
}

}  // namespace nax
