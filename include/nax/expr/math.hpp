// Public builders of elementwise expressions: operators, math functions, where, cast.
// Each is one line over a functor of functors.hpp and the Map node of elementwise.hpp.
#pragma once
#include "elementwise.hpp"
#include "functors.hpp"

namespace nax {

template <class A, class B>
concept binary_operands = operand<A> && operand<B> && (array_like<A> || array_like<B>);

// One builder per functor: NAME(a, b) (an operator or a function) is the Map of functor FN over a and b.
#define NAX_BINARY_BUILDER(NAME, FN)                                                     \
  template <class A, class B>                                                           \
    requires binary_operands<A, B>                                                      \
  auto NAME(A&& a, B&& b) {                                                             \
    return detail::make_binary<detail::fn::FN>(std::forward<A>(a), std::forward<B>(b)); \
  }
NAX_BINARY_BUILDER(operator+, plus)
NAX_BINARY_BUILDER(operator-, minus)
NAX_BINARY_BUILDER(operator*, multiplies)
NAX_BINARY_BUILDER(operator/, divides)
NAX_BINARY_BUILDER(operator<, less)
NAX_BINARY_BUILDER(operator<=, less_equal)
NAX_BINARY_BUILDER(operator>, greater)
NAX_BINARY_BUILDER(operator>=, greater_equal)
NAX_BINARY_BUILDER(operator==, equal_to)
NAX_BINARY_BUILDER(operator!=, not_equal_to)
NAX_BINARY_BUILDER(operator&&, logical_and)
NAX_BINARY_BUILDER(operator||, logical_or)
NAX_BINARY_BUILDER(maximum, maximum)
NAX_BINARY_BUILDER(minimum, minimum)
NAX_BINARY_BUILDER(pow, pow)
NAX_BINARY_BUILDER(logical_and, logical_and)
NAX_BINARY_BUILDER(logical_or, logical_or)
NAX_BINARY_BUILDER(arctan2, arctan2)
NAX_BINARY_BUILDER(hypot, hypot)
// fmod: truncated division's remainder (sign of a); remainder and mod: floored division's (sign
// of b), as jnp.fmod, jnp.remainder and jnp.mod. Integer division by zero gives 0.
NAX_BINARY_BUILDER(fmod, fmod)
NAX_BINARY_BUILDER(remainder, remainder)
NAX_BINARY_BUILDER(mod, remainder)
#undef NAX_BINARY_BUILDER

// x limited to [lo, hi], as jnp.clip(x, lo, hi): maximum with lo, then minimum with hi (a NaN
// stays NaN; lo > hi gives hi). lo and hi broadcast by name like any operand.
template <class X, class Lo, class Hi>
  requires operand<X> && operand<Lo> && operand<Hi> && (array_like<X> || array_like<Lo> || array_like<Hi>)
auto clip(X&& x, Lo&& lo, Hi&& hi) {
  return minimum(maximum(std::forward<X>(x), std::forward<Lo>(lo)), std::forward<Hi>(hi));
}

#define NAX_UNARY_FUNCTION(NAME, FN)                                       \
  template <class X>                                                       \
    requires array_like<X>                                                 \
  auto NAME(X&& x) {                                                       \
    return detail::make_map<detail::fn::FN>(std::forward<X>(x));           \
  }
NAX_UNARY_FUNCTION(operator-, negate)
NAX_UNARY_FUNCTION(operator!, logical_not)
NAX_UNARY_FUNCTION(logical_not, logical_not)
NAX_UNARY_FUNCTION(abs, abs)
NAX_UNARY_FUNCTION(square, square)
NAX_UNARY_FUNCTION(relu, relu)
NAX_UNARY_FUNCTION(exp, exp)
NAX_UNARY_FUNCTION(log, log)
NAX_UNARY_FUNCTION(log1p, log1p)
NAX_UNARY_FUNCTION(expm1, expm1)
NAX_UNARY_FUNCTION(sqrt, sqrt)
NAX_UNARY_FUNCTION(rsqrt, rsqrt)
NAX_UNARY_FUNCTION(sin, sin)
NAX_UNARY_FUNCTION(cos, cos)
NAX_UNARY_FUNCTION(tanh, tanh)
NAX_UNARY_FUNCTION(erf, erf)
NAX_UNARY_FUNCTION(sigmoid, sigmoid)
NAX_UNARY_FUNCTION(log_sigmoid, log_sigmoid)
NAX_UNARY_FUNCTION(relu6, relu6)
NAX_UNARY_FUNCTION(sign, sign)
NAX_UNARY_FUNCTION(floor, floor)
NAX_UNARY_FUNCTION(ceil, ceil)
NAX_UNARY_FUNCTION(trunc, trunc)
NAX_UNARY_FUNCTION(round, round)  // halves to even, as jnp.round
NAX_UNARY_FUNCTION(tan, tan)
NAX_UNARY_FUNCTION(arcsin, arcsin)
NAX_UNARY_FUNCTION(arccos, arccos)
NAX_UNARY_FUNCTION(arctan, arctan)
NAX_UNARY_FUNCTION(sinh, sinh)
NAX_UNARY_FUNCTION(cosh, cosh)
NAX_UNARY_FUNCTION(arcsinh, arcsinh)
NAX_UNARY_FUNCTION(arccosh, arccosh)
NAX_UNARY_FUNCTION(arctanh, arctanh)
NAX_UNARY_FUNCTION(softplus, softplus)
NAX_UNARY_FUNCTION(silu, silu)
NAX_UNARY_FUNCTION(swish, silu)
NAX_UNARY_FUNCTION(isnan, is_nan)
NAX_UNARY_FUNCTION(isinf, is_inf)
NAX_UNARY_FUNCTION(isfinite, is_finite)
// stop_gradient(x): x's value, with no derivative: grad treats it as a constant (jax.lax.stop_gradient).
NAX_UNARY_FUNCTION(stop_gradient, stop_gradient)
#undef NAX_UNARY_FUNCTION

// gelu(x): x Phi(x) with jax.nn.gelu's default tanh approximation; gelu<false>(x) is exact
// (as jax.nn.gelu(x, approximate=False)).
template <bool Approximate = true, class X>
  requires array_like<X>
auto gelu(X&& x) {
  using F = std::conditional_t<Approximate, detail::fn::gelu_tanh, detail::fn::gelu_exact>;
  return detail::make_map<F>(std::forward<X>(x));
}

// Converts every element to T.
template <class T, class X>
  requires array_like<X> && element<T>
auto cast(X&& x) {
  return detail::make_map<detail::fn::cast_to<T>>(std::forward<X>(x));
}

// a where c holds, else b; c, a and b broadcast by name. Numbers adopt the other branch's type.
template <class C, class A, class B>
  requires operand<C> && operand<A> && operand<B> && (array_like<C> || array_like<A> || array_like<B>)
auto where(C&& c, A&& a, B&& b) {
  if constexpr (element<std::remove_cvref_t<A>> && !element<std::remove_cvref_t<B>>)
    return detail::make_map<detail::fn::select>(std::forward<C>(c), detail::weak_operand<B>(std::forward<A>(a)),
                                                std::forward<B>(b));
  else if constexpr (element<std::remove_cvref_t<B>> && !element<std::remove_cvref_t<A>>)
    return detail::make_map<detail::fn::select>(std::forward<C>(c), std::forward<A>(a),
                                                detail::weak_operand<A>(std::forward<B>(b)));
  else
    return detail::make_map<detail::fn::select>(std::forward<C>(c), std::forward<A>(a), std::forward<B>(b));
}

}  // namespace nax
