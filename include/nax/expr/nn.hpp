// Neural-network functions over named axes, as compositions of elementwise ops and reductions
// (each is one fused expression; grad differentiates the composition): softmax, log_softmax,
// standardize, layer_norm and rms_norm (flax's), leaky_relu, elu and the cross-entropy losses. Formulas as jax.nn's and optax's,
// so that values and derivatives match theirs (tests/conformance, family nn). The elementwise
// activations with their own derivative (gelu, silu, softplus, relu6) are in math.hpp.
#pragma once
#include "index.hpp"
#include "math.hpp"
#include "reduce.hpp"

namespace nax {

namespace detail {
// x - max over As, the max held constant under grad (jax.nn.softmax's stop_gradient): the
// derivative of a softmax does not depend on the shift, and ties of the max would split it.
template <class... As, class E>
auto shifted_by_max(const E& e, const char* what) {
  require_nonempty_reduction<As...>(e, what);
  return e - stop_gradient(make_reduce<max_op, As...>(e));
}
}  // namespace detail

// exp(x) / sum over As of exp(x), computed from x - max (never exp of a large number). As
// jax.nn.softmax: a row holding +inf gives NaN. An empty axis raises nax::shape_error.
template <class... As, class X>
  requires array_like<X>
auto softmax(X&& x) {
  static_assert(sizeof...(As) > 0, "nax: softmax<Axes...>(x) needs the axes to normalise over, e.g. softmax<vocab>(x)");
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto unnormalized = exp(detail::shifted_by_max<As...>(cast<T>(std::forward<X>(x)), "softmax"));
  return unnormalized / sum<As...>(unnormalized);
}

// log(softmax(x)) as (x - max) - log(sum(exp(x - max))): accurate where softmax is near 1.
template <class... As, class X>
  requires array_like<X>
auto log_softmax(X&& x) {
  static_assert(sizeof...(As) > 0,
                "nax: log_softmax<Axes...>(x) needs the axes to normalise over, e.g. log_softmax<vocab>(x)");
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto shifted = detail::shifted_by_max<As...>(cast<T>(std::forward<X>(x)), "log_softmax");
  return shifted - log(sum<As...>(exp(shifted)));
}

// (x - mean) / sqrt(variance + epsilon) over As, with the variance as jax.nn.standardize
// computes it: mean(x^2) - mean(x)^2.
template <class... As, class X>
  requires array_like<X>
auto standardize(X&& x, double epsilon = 1e-5) {
  static_assert(sizeof...(As) > 0, "nax: standardize<Axes...>(x) needs the axes to normalise over");
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  auto m = mean<As...>(e);
  auto variance = mean<As...>(square(e)) - square(m);
  return (e - m) * rsqrt(variance + T(epsilon));
}

// Layer normalisation over As as flax.linen.LayerNorm computes it (jax.nn has none):
// (x - mean) * (rsqrt(max(var, 0) + epsilon) * scale) + bias, var = mean(x^2) - mean(x)^2.
// scale and bias broadcast by name (usually they have the normalised axes).
template <class... As, class X, class S, class B>
  requires array_like<X> && operand<S> && operand<B>
auto layer_norm(X&& x, S&& scale, B&& bias, double epsilon = 1e-6) {
  static_assert(sizeof...(As) > 0, "nax: layer_norm<Axes...>(x, scale, bias) needs the axes to normalise over");
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  auto m = mean<As...>(e);
  auto variance = maximum(mean<As...>(square(e)) - square(m), T(0));
  return (e - m) * (rsqrt(variance + T(epsilon)) * std::forward<S>(scale)) + std::forward<B>(bias);
}

// RMS normalisation over As as flax.linen.RMSNorm: x * (rsqrt(mean(x^2) + epsilon) * scale).
template <class... As, class X, class S>
  requires array_like<X> && operand<S>
auto rms_norm(X&& x, S&& scale, double epsilon = 1e-6) {
  static_assert(sizeof...(As) > 0, "nax: rms_norm<Axes...>(x, scale) needs the axes to normalise over");
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  auto variance = mean<As...>(square(e));
  return e * (rsqrt(variance + T(epsilon)) * std::forward<S>(scale));
}

// x where x >= 0, else negative_slope * x (jax.nn.leaky_relu; derivative 1 at 0).
template <class X>
  requires array_like<X>
auto leaky_relu(X&& x, double negative_slope = 0.01) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  return where(e >= T(0), e, e * T(negative_slope));
}

// x where x > 0, else alpha * (exp(x) - 1) (jax.nn.elu; derivative alpha at 0).
template <class X>
  requires array_like<X>
auto elu(X&& x, double alpha = 1.0) {
  using T = floating_t<typename detail::expr_t<X>::value_type>;
  auto e = cast<T>(std::forward<X>(x));
  return where(e > T(0), e, T(alpha) * expm1(where(e > T(0), T(0), e)));
}

// -labels log(sigmoid(logits)) - (1 - labels) log(1 - sigmoid(logits)), elementwise, as
// optax.sigmoid_binary_cross_entropy; labels are probabilities (0 and 1 for hard labels).
template <class L, class Y>
  requires array_like<L> && array_like<Y>
auto sigmoid_binary_cross_entropy(L&& logits, Y&& labels) {
  using T = floating_t<promote_t<typename detail::expr_t<L>::value_type, typename detail::expr_t<Y>::value_type>>;
  auto l = cast<T>(std::forward<L>(logits));
  auto y = cast<T>(std::forward<Y>(labels));
  return -y * log_sigmoid(l) - (T(1) - y) * log_sigmoid(-l);
}

// -sum over As of labels * log_softmax(logits), as optax.softmax_cross_entropy; labels are a
// probability distribution over As (one-hot for hard labels).
template <class... As, class L, class Y>
  requires array_like<L> && array_like<Y>
auto softmax_cross_entropy(L&& logits, Y&& labels) {
  static_assert(sizeof...(As) > 0, "nax: softmax_cross_entropy<Axes...>(logits, labels) needs the class axes");
  return -sum<As...>(std::forward<Y>(labels) * log_softmax<As...>(std::forward<L>(logits)));
}

// optax.softmax_cross_entropy_with_integer_labels: logsumexp over A minus the label's logit,
// for labels without the class axis A (one per position of the other axes). Written as optax
// writes it, so no log-probability array is stored: one reduction and a gather of the labels'
// logits. A label outside [-n, n) gives NaN, as optax's take_along_axis (index_mode::fill).
template <class A, class L, class Y>
  requires array_like<L> && array_like<Y>
auto softmax_cross_entropy_with_integer_labels(L&& logits, Y&& labels) {
  auto z = detail::as_expr(std::forward<L>(logits));
  return logsumexp<A>(z) - take_along<A>(z, std::forward<Y>(labels), index_mode::fill);
}

}  // namespace nax
