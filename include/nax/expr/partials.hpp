// Derivatives of the elementwise functors (functors.hpp), for grad and jvp: partial<F, K>
// and partial<partial<F, J>, K> are functors of the same families, evaluated at F's arguments.
#pragma once
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "functors.hpp"

namespace nax::detail::fn {

// How grad and jvp differentiate F, where its structure serves better than its partials:
// - linear (+, -, negation, casts): a tangent goes through F itself, a cotangent to argument J
//   is ct times linear_sign_v<F, J> (+1 or -1), with no partial built;
// - bilinear (*): each argument's cotangent or tangent term is ct (t) times the other operand;
// - selection (where): the cotangent goes to the chosen branch, the condition gets none;
// - by_partial: ct * partial<F, J>(x...), for every other function (a missing partial is a
//   compile error naming F and J, autodiff/rules.hpp's require_derivative).
enum class derivative_kind { linear, bilinear, selection, by_partial };
template <class F>
inline constexpr derivative_kind derivative_kind_v = derivative_kind::by_partial;
template <>
inline constexpr derivative_kind derivative_kind_v<plus> = derivative_kind::linear;
template <>
inline constexpr derivative_kind derivative_kind_v<minus> = derivative_kind::linear;
template <>
inline constexpr derivative_kind derivative_kind_v<negate> = derivative_kind::linear;
template <class T>
inline constexpr derivative_kind derivative_kind_v<cast_to<T>> = derivative_kind::linear;
template <>
inline constexpr derivative_kind derivative_kind_v<multiplies> = derivative_kind::bilinear;
template <>
inline constexpr derivative_kind derivative_kind_v<select> = derivative_kind::selection;

// The coefficient of argument J in a linear F: x - y is +1 x - 1 y, -x is -1 x. Stated for
// every linear op, with no default: a new linear op without its signs does not compile
// (an incomplete linear_sign), rather than taking +1 silently.
template <class F, std::size_t J>
struct linear_sign;
template <std::size_t J>
struct linear_sign<plus, J> : std::integral_constant<int, 1> {};
template <>
struct linear_sign<minus, 0> : std::integral_constant<int, 1> {};
template <>
struct linear_sign<minus, 1> : std::integral_constant<int, -1> {};
template <>
struct linear_sign<negate, 0> : std::integral_constant<int, -1> {};
template <class T>
struct linear_sign<cast_to<T>, 0> : std::integral_constant<int, 1> {};
template <class F, std::size_t J>
inline constexpr int linear_sign_v = linear_sign<F, J>::value;

// A derivative that is 0 everywhere (piecewise constant functions, the second partials of
// linear ones): the partials below that are one derive from these.
struct zero_unary : float_unary<zero_unary> {
  template <class R> NAX_HOST_DEVICE static R value(R) { return R(0); }
};
struct zero_binary : promoting_binary<zero_binary> {
  template <class R> NAX_HOST_DEVICE static R value(R, R) { return R(0); }
};
// A partial that is 1 everywhere (x + y in either argument, x - y, fmod and remainder in x,
// and the mixed second partials of x * y).
struct unit_binary : promoting_binary<unit_binary> {
  template <class R> NAX_HOST_DEVICE static R value(R, R) { return R(1); }
};

// Derivatives, for reverse-mode autodiff (include/nax/autodiff/): partial<F, K> is the
// elementwise functor d F(x_0, ..., x_n) / d x_K evaluated at the same arguments, in the
// floating result type. Only functors with a floating result have one; where, cast and
// the comparisons are handled by the autodiff rules themselves. Points where the function
// is not differentiable take JAX's choice (abs'(0) = 0, relu'(0) = 0, ties of maximum and
// minimum split the cotangent in halves).
template <class F, std::size_t K>
struct partial;

// One derivative functor: the specialisation (partial<F, K> or partial<partial<F, J>, K>,
// given last because it holds commas) computing BODY from x (and y) in the floating type R.
template <>
struct partial<negate, 0> : float_unary<partial<negate, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R) { return R(-1); }
};
template <>
struct partial<abs, 0> : float_unary<partial<abs, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return x > R(0) ? R(1) : (x < R(0) ? R(-1) : R(0)); }
};
template <>
struct partial<square, 0> : float_unary<partial<square, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(2) * x; }
};
template <>
struct partial<relu, 0> : float_unary<partial<relu, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return x > R(0) ? R(1) : R(0); }
};
template <>
struct partial<exp, 0> : float_unary<partial<exp, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return vector_math::exp(x); }
};
template <>
struct partial<log, 0> : float_unary<partial<log, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / x; }
};
template <>
struct partial<log1p, 0> : float_unary<partial<log1p, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / (R(1) + x); }
};
template <>
struct partial<expm1, 0> : float_unary<partial<expm1, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return vector_math::exp(x); }
};
template <>
struct partial<sqrt, 0> : float_unary<partial<sqrt, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(0.5) / std::sqrt(x); }
};
template <>
struct partial<rsqrt, 0> : float_unary<partial<rsqrt, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(-0.5) / (x * std::sqrt(x)); }
};
template <>
struct partial<sin, 0> : float_unary<partial<sin, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::cos(x); }
};
template <>
struct partial<cos, 0> : float_unary<partial<cos, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return -std::sin(x); }
};
template <>
struct partial<tanh, 0> : float_unary<partial<tanh, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R t = vector_math::tanh(x); return R(1) - t * t; }
};
// 2 / sqrt(pi)
template <>
struct partial<erf, 0> : float_unary<partial<erf, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1.1283791670955126) * vector_math::exp(-x * x); }
};
template <>
struct partial<sigmoid, 0> : float_unary<partial<sigmoid, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { R s = R(1) / (R(1) + vector_math::exp(-x)); return s * (R(1) - s); }
};
// sigmoid(-x)
template <>
struct partial<log_sigmoid, 0> : float_unary<partial<log_sigmoid, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / (R(1) + vector_math::exp(x)); }
};
// 0 at both kinks, as jax.nn.relu6
template <>
struct partial<relu6, 0> : float_unary<partial<relu6, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return x > R(0) && x < R(6) ? R(1) : R(0); }
};
template <>
struct partial<sign, 0> : zero_unary {};
template <>
struct partial<floor, 0> : zero_unary {};
template <>
struct partial<ceil, 0> : zero_unary {};
template <>
struct partial<trunc, 0> : zero_unary {};
template <>
struct partial<round, 0> : zero_unary {};
template <>
struct partial<tan, 0> : float_unary<partial<tan, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R t = std::tan(x); return R(1) + t * t; }
};
template <>
struct partial<arcsin, 0> : float_unary<partial<arcsin, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / std::sqrt(R(1) - x * x); }
};
template <>
struct partial<arccos, 0> : float_unary<partial<arccos, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(-1) / std::sqrt(R(1) - x * x); }
};
template <>
struct partial<arctan, 0> : float_unary<partial<arctan, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / (R(1) + x * x); }
};
template <>
struct partial<sinh, 0> : float_unary<partial<sinh, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::cosh(x); }
};
template <>
struct partial<cosh, 0> : float_unary<partial<cosh, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::sinh(x); }
};
template <>
struct partial<arcsinh, 0> : float_unary<partial<arcsinh, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / std::sqrt(x * x + R(1)); }
};
template <>
struct partial<arccosh, 0> : float_unary<partial<arccosh, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { return R(1) / (std::sqrt(x - R(1)) * std::sqrt(x + R(1))); }
};
template <>
struct partial<arctanh, 0> : float_unary<partial<arctanh, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / (R(1) - x * x); }
};
// sigmoid
template <>
struct partial<softplus, 0> : float_unary<partial<softplus, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / (R(1) + vector_math::exp(-x)); }
};
template <>
struct partial<silu, 0> : float_unary<partial<silu, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { R s = R(1) / (R(1) + vector_math::exp(-x)); return s * (R(1) + x * (R(1) - s)); }
};
// Phi(x) + x phi(x), phi the standard normal density (1 / sqrt(2 pi) = 0.3989...).
template <>
struct partial<gelu_exact, 0> : float_unary<partial<gelu_exact, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) {
    return R(0.5) * std::erfc(-x * R(0.70710678118654752440)) + x * R(0.39894228040143267794) * vector_math::exp(R(-0.5) * x * x);
  }
};
// gelu_tanh = x s with s = sigmoid(2u), u = k (x + 0.044715 x^3); n = sigmoid(-2u) = 1 - s
// computed as such (no cancellation): s + 2 x s n u'.
template <>
struct partial<gelu_tanh, 0> : float_unary<partial<gelu_tanh, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) {
    const R k = R(0.79788456080286535588);
    R u = k * (x + R(0.044715) * (x * x * x));
    R s = R(1) / (R(1) + vector_math::exp(R(-2) * u));
    R n = R(1) / (R(1) + vector_math::exp(R(2) * u));
    R du = k * (R(1) + R(3) * R(0.044715) * x * x);
    return s + R(2) * x * s * n * du;
  }
};

template <>
struct partial<plus, 0> : unit_binary {};
template <>
struct partial<plus, 1> : unit_binary {};
template <>
struct partial<minus, 0> : unit_binary {};
template <>
struct partial<minus, 1> : promoting_binary<partial<minus, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R, R) { return R(-1); }
};
template <>
struct partial<multiplies, 0> : promoting_binary<partial<multiplies, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R, R y) { return y; }
};
template <>
struct partial<multiplies, 1> : promoting_binary<partial<multiplies, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R) { return x; }
};
template <>
struct partial<divides, 0> : promoting_binary<partial<divides, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R, R y) { return R(1) / y; }
};
template <>
struct partial<divides, 1> : promoting_binary<partial<divides, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return -x / (y * y); }
};
template <>
struct partial<maximum, 0> : promoting_binary<partial<maximum, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return x > y ? R(1) : (x == y ? R(0.5) : R(0)); }
};
template <>
struct partial<maximum, 1> : promoting_binary<partial<maximum, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return y > x ? R(1) : (x == y ? R(0.5) : R(0)); }
};
template <>
struct partial<minimum, 0> : promoting_binary<partial<minimum, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return x < y ? R(1) : (x == y ? R(0.5) : R(0)); }
};
template <>
struct partial<minimum, 1> : promoting_binary<partial<minimum, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return y < x ? R(1) : (x == y ? R(0.5) : R(0)); }
};
// As jax.lax.pow: d/dx = y x^(y-1) (0 where y = 0), d/dy = log(x) x^y (0 where x = 0).
template <>
struct partial<pow, 0> : promoting_binary<partial<pow, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return y == R(0) ? R(0) : y * std::pow(x, y - R(1)); }
};
template <>
struct partial<pow, 1> : promoting_binary<partial<pow, 1>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) { return x == R(0) ? R(0) : std::log(x) * std::pow(x, y); }
};
template <>
struct partial<arctan2, 0> : promoting_binary<partial<arctan2, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return y / (x * x + y * y); }
};
template <>
struct partial<arctan2, 1> : promoting_binary<partial<arctan2, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return -x / (x * x + y * y); }
};
template <>
struct partial<hypot, 0> : promoting_binary<partial<hypot, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return x / std::hypot(x, y); }
};
template <>
struct partial<hypot, 1> : promoting_binary<partial<hypot, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return y / std::hypot(x, y); }
};
// As lax.rem's and jnp.remainder's: 1 for x; -trunc(x / y), resp. -floor(x / y), for y.
template <>
struct partial<fmod, 0> : unit_binary {};
template <>
struct partial<fmod, 1> : promoting_binary<partial<fmod, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return -std::trunc(x / y); }
};
template <>
struct partial<remainder, 0> : unit_binary {};
template <>
struct partial<remainder, 1> : promoting_binary<partial<remainder, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return -std::floor(x / y); }
};

// Second derivatives, for grad(grad(f)): partial<partial<F, J>, K> = d^2 F / dx_J dx_K. The
// backward pass of a first derivative is made of partial<F, J> nodes, so differentiating it
// once more needs these. Third derivatives are not provided (grad of grad of grad does not
// compile).
template <>
struct partial<partial<negate, 0>, 0> : zero_unary {};
template <>
struct partial<partial<abs, 0>, 0> : zero_unary {};
template <>
struct partial<partial<square, 0>, 0> : float_unary<partial<partial<square, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R) { return R(2); }
};
template <>
struct partial<partial<relu, 0>, 0> : zero_unary {};
template <>
struct partial<partial<exp, 0>, 0> : float_unary<partial<partial<exp, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return vector_math::exp(x); }
};
template <>
struct partial<partial<log, 0>, 0> : float_unary<partial<partial<log, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(-1) / (x * x); }
};
template <>
struct partial<partial<log1p, 0>, 0> : float_unary<partial<partial<log1p, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(-1) / ((R(1) + x) * (R(1) + x)); }
};
template <>
struct partial<partial<expm1, 0>, 0> : float_unary<partial<partial<expm1, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return vector_math::exp(x); }
};
template <>
struct partial<partial<sqrt, 0>, 0> : float_unary<partial<partial<sqrt, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(-0.25) / (x * std::sqrt(x)); }
};
template <>
struct partial<partial<rsqrt, 0>, 0> : float_unary<partial<partial<rsqrt, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(0.75) / (x * x * std::sqrt(x)); }
};
template <>
struct partial<partial<sin, 0>, 0> : float_unary<partial<partial<sin, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return -std::sin(x); }
};
template <>
struct partial<partial<cos, 0>, 0> : float_unary<partial<partial<cos, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return -std::cos(x); }
};
template <>
struct partial<partial<tanh, 0>, 0> : float_unary<partial<partial<tanh, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R t = vector_math::tanh(x); return R(-2) * t * (R(1) - t * t); }
};
// -4 x / sqrt(pi) e^(-x^2)
template <>
struct partial<partial<erf, 0>, 0> : float_unary<partial<partial<erf, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(-2.2567583341910252) * x * vector_math::exp(-x * x); }
};
template <>
struct partial<partial<sigmoid, 0>, 0> : float_unary<partial<partial<sigmoid, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) {
    R s = R(1) / (R(1) + vector_math::exp(-x));
    return s * (R(1) - s) * (R(1) - R(2) * s);
  }
};
template <>
struct partial<partial<log_sigmoid, 0>, 0> : float_unary<partial<partial<log_sigmoid, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { R s = R(1) / (R(1) + vector_math::exp(-x)); return -s * (R(1) - s); }
};
template <>
struct partial<partial<relu6, 0>, 0> : zero_unary {};
template <>
struct partial<partial<sign, 0>, 0> : zero_unary {};
template <>
struct partial<partial<floor, 0>, 0> : zero_unary {};
template <>
struct partial<partial<ceil, 0>, 0> : zero_unary {};
template <>
struct partial<partial<trunc, 0>, 0> : zero_unary {};
template <>
struct partial<partial<round, 0>, 0> : zero_unary {};
template <>
struct partial<partial<tan, 0>, 0> : float_unary<partial<partial<tan, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R t = std::tan(x); return R(2) * t * (R(1) + t * t); }
};
template <>
struct partial<partial<arcsin, 0>, 0> : float_unary<partial<partial<arcsin, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R q = R(1) - x * x; return x / (q * std::sqrt(q)); }
};
template <>
struct partial<partial<arccos, 0>, 0> : float_unary<partial<partial<arccos, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R q = R(1) - x * x; return -x / (q * std::sqrt(q)); }
};
template <>
struct partial<partial<arctan, 0>, 0> : float_unary<partial<partial<arctan, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R q = R(1) + x * x; return R(-2) * x / (q * q); }
};
template <>
struct partial<partial<sinh, 0>, 0> : float_unary<partial<partial<sinh, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::sinh(x); }
};
template <>
struct partial<partial<cosh, 0>, 0> : float_unary<partial<partial<cosh, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::cosh(x); }
};
template <>
struct partial<partial<arcsinh, 0>, 0> : float_unary<partial<partial<arcsinh, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R q = x * x + R(1); return -x / (q * std::sqrt(q)); }
};
template <>
struct partial<partial<arccosh, 0>, 0> : float_unary<partial<partial<arccosh, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R q = x * x - R(1); return -x / (q * std::sqrt(q)); }
};
template <>
struct partial<partial<arctanh, 0>, 0> : float_unary<partial<partial<arctanh, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { R q = R(1) - x * x; return R(2) * x / (q * q); }
};
template <>
struct partial<partial<softplus, 0>, 0> : float_unary<partial<partial<softplus, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { R s = R(1) / (R(1) + vector_math::exp(-x)); return s * (R(1) - s); }
};
template <>
struct partial<partial<silu, 0>, 0> : float_unary<partial<partial<silu, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) {
    R s = R(1) / (R(1) + vector_math::exp(-x));
    return s * (R(1) - s) * (R(2) + x * (R(1) - R(2) * s));
  }
};
template <>
struct partial<partial<gelu_exact, 0>, 0> : float_unary<partial<partial<gelu_exact, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) {
    return (R(2) - x * x) * R(0.39894228040143267794) * vector_math::exp(R(-0.5) * x * x);
  }
};
// d/dx [s + 2 x s n u'] with s' = 2 s n u', (s n)' = 2 s n u' (n - s), u'' = 6 k 0.044715 x.
template <>
struct partial<partial<gelu_tanh, 0>, 0> : float_unary<partial<partial<gelu_tanh, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) {
    const R k = R(0.79788456080286535588);
    R u = k * (x + R(0.044715) * (x * x * x));
    R s = R(1) / (R(1) + vector_math::exp(R(-2) * u));
    R n = R(1) / (R(1) + vector_math::exp(R(2) * u));
    R du = k * (R(1) + R(3) * R(0.044715) * x * x);
    R ddu = R(6) * k * R(0.044715) * x;
    return R(4) * s * n * du + x * (R(4) * s * n * (n - s) * du * du + R(2) * s * n * ddu);
  }
};

// + and - are linear; maximum, minimum, fmod and remainder have piecewise constant first
// derivatives: every second partial is 0.
template <>
struct partial<partial<plus, 0>, 0> : zero_binary {};
template <>
struct partial<partial<plus, 0>, 1> : zero_binary {};
template <>
struct partial<partial<plus, 1>, 0> : zero_binary {};
template <>
struct partial<partial<plus, 1>, 1> : zero_binary {};
template <>
struct partial<partial<minus, 0>, 0> : zero_binary {};
template <>
struct partial<partial<minus, 0>, 1> : zero_binary {};
template <>
struct partial<partial<minus, 1>, 0> : zero_binary {};
template <>
struct partial<partial<minus, 1>, 1> : zero_binary {};
template <>
struct partial<partial<maximum, 0>, 0> : zero_binary {};
template <>
struct partial<partial<maximum, 0>, 1> : zero_binary {};
template <>
struct partial<partial<maximum, 1>, 0> : zero_binary {};
template <>
struct partial<partial<maximum, 1>, 1> : zero_binary {};
template <>
struct partial<partial<minimum, 0>, 0> : zero_binary {};
template <>
struct partial<partial<minimum, 0>, 1> : zero_binary {};
template <>
struct partial<partial<minimum, 1>, 0> : zero_binary {};
template <>
struct partial<partial<minimum, 1>, 1> : zero_binary {};
template <>
struct partial<partial<fmod, 0>, 0> : zero_binary {};
template <>
struct partial<partial<fmod, 0>, 1> : zero_binary {};
template <>
struct partial<partial<fmod, 1>, 0> : zero_binary {};
template <>
struct partial<partial<fmod, 1>, 1> : zero_binary {};
template <>
struct partial<partial<remainder, 0>, 0> : zero_binary {};
template <>
struct partial<partial<remainder, 0>, 1> : zero_binary {};
template <>
struct partial<partial<remainder, 1>, 0> : zero_binary {};
template <>
struct partial<partial<remainder, 1>, 1> : zero_binary {};
template <>
struct partial<partial<multiplies, 0>, 0> : zero_binary {};
template <>
struct partial<partial<multiplies, 0>, 1> : unit_binary {};
template <>
struct partial<partial<multiplies, 1>, 0> : unit_binary {};
template <>
struct partial<partial<multiplies, 1>, 1> : zero_binary {};
template <>
struct partial<partial<divides, 0>, 0> : zero_binary {};
template <>
struct partial<partial<divides, 0>, 1> : promoting_binary<partial<partial<divides, 0>, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R, R y) { return R(-1) / (y * y); }
};
template <>
struct partial<partial<divides, 1>, 0> : promoting_binary<partial<partial<divides, 1>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R, R y) { return R(-1) / (y * y); }
};
template <>
struct partial<partial<divides, 1>, 1> : promoting_binary<partial<partial<divides, 1>, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return R(2) * x / (y * y * y); }
};
// pow's first partials as jax.lax.pow's (0 where y = 0, resp. x = 0); their derivatives there too.
template <>
struct partial<partial<pow, 0>, 0> : promoting_binary<partial<partial<pow, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) { return y == R(0) ? R(0) : y * (y - R(1)) * std::pow(x, y - R(2)); }
};
template <>
struct partial<partial<pow, 0>, 1> : promoting_binary<partial<partial<pow, 0>, 1>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) {
    return y == R(0) ? R(0) : std::pow(x, y - R(1)) * (R(1) + y * std::log(x));
  }
};
template <>
struct partial<partial<pow, 1>, 0> : promoting_binary<partial<partial<pow, 1>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) {
    return x == R(0) ? R(0) : std::pow(x, y - R(1)) * (R(1) + y * std::log(x));
  }
};
template <>
struct partial<partial<pow, 1>, 1> : promoting_binary<partial<partial<pow, 1>, 1>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) { return x == R(0) ? R(0) : std::log(x) * std::log(x) * std::pow(x, y); }
};
// arctan2: with r2 = x^2 + y^2, d/dx = y / r2 and d/dy = -x / r2.
template <>
struct partial<partial<arctan2, 0>, 0> : promoting_binary<partial<partial<arctan2, 0>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) { R r2 = x * x + y * y; return R(-2) * x * y / (r2 * r2); }
};
template <>
struct partial<partial<arctan2, 0>, 1> : promoting_binary<partial<partial<arctan2, 0>, 1>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) { R r2 = x * x + y * y; return (x * x - y * y) / (r2 * r2); }
};
template <>
struct partial<partial<arctan2, 1>, 0> : promoting_binary<partial<partial<arctan2, 1>, 0>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) { R r2 = x * x + y * y; return (x * x - y * y) / (r2 * r2); }
};
template <>
struct partial<partial<arctan2, 1>, 1> : promoting_binary<partial<partial<arctan2, 1>, 1>> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x, R y) { R r2 = x * x + y * y; return R(2) * x * y / (r2 * r2); }
};
// hypot h: d/dx = x / h, d/dy = y / h.
template <>
struct partial<partial<hypot, 0>, 0> : promoting_binary<partial<partial<hypot, 0>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { R h = std::hypot(x, y); return y * y / (h * h * h); }
};
template <>
struct partial<partial<hypot, 0>, 1> : promoting_binary<partial<partial<hypot, 0>, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { R h = std::hypot(x, y); return -x * y / (h * h * h); }
};
template <>
struct partial<partial<hypot, 1>, 0> : promoting_binary<partial<partial<hypot, 1>, 0>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { R h = std::hypot(x, y); return -x * y / (h * h * h); }
};
template <>
struct partial<partial<hypot, 1>, 1> : promoting_binary<partial<partial<hypot, 1>, 1>> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { R h = std::hypot(x, y); return x * x / (h * h * h); }
};

// The derivative of a unary F written in its output y = F(x), where that costs less than the
// partial (no transcendental function evaluated again): 1 - y^2 for tanh, y for exp,
// y (1 - y) for sigmoid, 1 / (2 y) for sqrt, as JAX's rules for them read the primal output.
// A recorded evaluation whose expression is F of something reads its own output this way in
// its backward pass (autodiff/record.hpp). Others have none (has_output_partial_v is false).
template <class F>
struct output_partial;
template <>
struct output_partial<tanh> : float_unary<output_partial<tanh>> {
  template <class R> NAX_HOST_DEVICE static R value(R y) { return R(1) - y * y; }
};
template <>
struct output_partial<exp> : float_unary<output_partial<exp>> {
  template <class R> NAX_HOST_DEVICE static R value(R y) { return y; }
};
template <>
struct output_partial<sigmoid> : float_unary<output_partial<sigmoid>> {
  template <class R> NAX_HOST_DEVICE static R value(R y) { return y * (R(1) - y); }
};
template <>
struct output_partial<sqrt> : float_unary<output_partial<sqrt>> {
  template <class R> NAX_HOST_DEVICE static R value(R y) { return R(0.5) / y; }
};
template <class F>
inline constexpr bool has_output_partial_v = requires { sizeof(output_partial<F>); };

}  // namespace nax::detail::fn
