// Recorded evaluations (DESIGN 5b): evaluate_recorded, which Array construction, assignment,
// copies and nax::eval reach while a grad runs (core/evaluate_fwd.hpp), and the entry it
// appends. An entry keeps the expression (its leaves view the arrays it read; the tape keeps
// those alive) and the evaluation context, whose memo holds the reductions and contractions
// of the forward pass, so the entry's backward pass (the expression's static rules, as for
// grad's final expression) recomputes none of them. Under jvp (forward mode) an evaluation
// instead evaluates its tangent beside its value (forward.hpp's rules, in the value's context)
// and keeps it for the evaluations that read its output. Autodiff layer: needs rules.hpp and
// forward.hpp.
#pragma once
#include <memory>

#include "forward.hpp"
#include "rules.hpp"
#include "tangents.hpp"

namespace nax::detail {
namespace ad {

// An expression F(x), F unary with a derivative written in its output (expr/partials.hpp:
// output_partial), or a relayout of one (a layer's h = tanh(z) renamed for the next layer),
// with visible axes only and the destination's element type: its backward pass reads the
// recorded output instead of evaluating F's partial again. argument(e) is x, relaid out as e
// is (a unary map keeps its argument's axes; copies of x keep its nodes' ids, so the forward
// pass's memo still serves them).
template <class E, class T>
struct own_output_rule : std::false_type {};
template <class F, class C, class T>
struct own_output_rule<Map<F, C>, T>
    : std::bool_constant<fn::has_output_partial_v<F> && std::is_same_v<typename Map<F, C>::value_type, T> &&
                         std::is_floating_point_v<typename C::value_type> &&
                         std::is_same_v<hidden_t<C>, axes<>> && std::is_same_v<unbound_t<C>, axes<>>> {
  using functor = F;
  static const C& argument(const Map<F, C>& e) { return get<0>(e.children); }
};
template <class F, class C, class Kind, class Out, class T>
struct own_output_rule<Relayout<Map<F, C>, Kind, Out, axes<>, axes<>>, T> : own_output_rule<Map<F, C>, T> {
  static Relayout<C, Kind, Out, axes<>, axes<>> argument(const Relayout<Map<F, C>, Kind, Out, axes<>, axes<>>& e) {
    return {{}, get<0>(e.child.children), e.extents_, e.coef, e.offset};
  }
};
template <class E, class T>
inline constexpr bool reads_own_output_v = own_output_rule<E, T>::value;

// softmax<As...>(x) as nax builds it (expr/nn.hpp): u / sum<As>(u), u = exp(s), s = x - max.
// Its backward pass reads the recorded output y: ds = y * (ct - sum<As>(ct * y)), JAX's rule,
// instead of differentiating the quotient (exp(s) evaluated again, and more passes).
template <class E, class T>
struct softmax_output_rule : std::false_type {};
template <class S, class... As, class T>
struct softmax_output_rule<Map<fn::divides, Map<fn::exp, S>, Reduce<sum_op, Map<fn::exp, S>, As...>>, T>
    : std::bool_constant<std::is_same_v<typename S::value_type, T> && std::is_floating_point_v<T>> {
  using E = Map<fn::divides, Map<fn::exp, S>, Reduce<sum_op, Map<fn::exp, S>, As...>>;
  static const S& shifted(const E& e) { return get<0>(get<0>(e.children).children); }
  template <class Y, class Ct>
  static auto shifted_cotangent(Y y, Ct ct) {
    auto weighted = Reduce<sum_op, decltype(make_map<fn::multiplies>(ct, y)), As...>(make_map<fn::multiplies>(ct, y));
    return make_map<fn::multiplies>(y, make_map<fn::minus>(ct, std::move(weighted)));
  }
};

template <class Space, class E, class T, class Axes>
struct recorded final : entry_base {
  E expr;
  typename Space::context ctx = Space::make_context();
  // The evaluation's output, read by the backward pass where reads_own_output_v (the tape keeps
  // a recorded output's memory until the backward pass, and f cannot write into it).
  view_for_t<const T, Axes> output_view;
  recorded(E e, view_for_t<const T, Axes> out) : expr(std::move(e)), output_view(out) {}

  void backward(tape& record, const std::shared_ptr<void>& cotangent, bool keep) override {
    const auto& ct = *static_cast<const typename Space::template array<T, Axes>*>(cotangent.get());
    run(record, ct.view(), keep);
  }
  void backward_member(tape& record, cotangent_slot cotangent, bool keep) override {
    if constexpr (std::is_same_v<Space, host_space>) run(record, slot_view<T, Axes>(cotangent), keep);
    else throw std::logic_error("nax: grad: internal error: a per-member cotangent of a recorded evaluation off the host");
  }

 private:
  template <class View>
  void run(tape& record, const View& ct, bool keep) {
    // The output's axes count as the output's own here (Hout): a cotangent keeps a mapped axis
    // of them down to the leaves, where tape::accumulate knows whether the differentiated
    // output varies over it (keep it per member) or not (sum it over the members).
    state<Space, Axes, std::tuple<>> st{keep ? typename Space::context(ctx) : std::move(ctx), {}};
    st.record = &record;
    if constexpr (reads_own_output_v<E, T>) {
      // tanh's 1 - y^2 from the output y, not from tanh(x) again: JAX's rule, and one
      // transcendental function per element less.
      using rule = own_output_rule<E, T>;
      const auto& x = rule::argument(expr);
      if (reaches(x, st)) {
        auto derivative = make_map<fn::output_partial<typename rule::functor>>(leaf_of(output_view));
        backprop(x, make_map<fn::multiplies>(leaf_of(ct), std::move(derivative)), st);
      }
    } else if constexpr (softmax_output_rule<E, T>::value) {
      using rule = softmax_output_rule<E, T>;
      const auto& s = rule::shifted(expr);
      if (reaches(s, st)) backprop(s, rule::shifted_cotangent(leaf_of(output_view), leaf_of(ct)), st);
    } else {
      backprop(expr, leaf_of(ct), st);
    }
  }
};

inline tape& current_tape() { return static_cast<tape&>(*active_tape); }  // only autodiff sets it

// Forward mode: out = e and its tangent, in one context (the tangent's partials read the
// value's memoised reductions and contractions); later leaves of out read the tangent.
template <class T, class... As, class E>
void evaluate_with_tangent(tape& record, tangent_env& env, const ArrayView<T, As...>& out, const E& e) {
  auto t = std::make_shared<Array<T, As...>>(no_fill, out.extents());
  {
    tape::suspension quiet(record);  // (the context's temporaries are freed at once)
    host::context ctx;
    host::assign_in_context(out, e, ctx);
    host::assign_in_context(t->view(), cast_if_needed<T>(tangent_or_zero(e, env)), ctx);  // (an integer e: 0)
  }
  env.add(ArrayView<const T, As...>(out), std::move(t));
  record.track_forward_output(out);
}

}  // namespace ad

// The host's evaluation of e into out while a grad runs: recorded when e depends on a
// differentiated argument and out can carry a derivative (floating point).
template <class T, class... As, class E>
void evaluate_recorded(const ArrayView<T, As...>& out, const E& e) {
  ad::tape& record = ad::current_tape();
  record.check_enclosing(e);
  record.check_destination(out);  // (also for a constant: the record may read what it would overwrite)
  if (!std::is_floating_point_v<T> || !record.depends_expression(e)) {
    ad::tape::suspension quiet(record);
    host::context ctx;
    host::assign_in_context(out, e, ctx);
    return;
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (ad::tangent_env* env = record.forward()) return ad::evaluate_with_tangent(record, *env, out, e);
    record.check_recording();
    auto entry = std::make_unique<ad::recorded<host_space, E, T, axes<As...>>>(e, ArrayView<const T, As...>(out));
    {
      ad::tape::suspension quiet(record);  // (the memo's temporaries stay in the entry)
      host::assign_in_context(out, entry->expr, entry->ctx);
    }
    auto* expr = &entry->expr;
    record.add_entry(std::move(entry), out, *expr);
  }
}

}  // namespace nax::detail
