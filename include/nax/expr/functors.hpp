// Elementwise operations as small functors: one generic Map node serves all of them.
// Each functor gives its result type and its value; adding an op is one functor here
// and one builder line in math.hpp (and its derivatives in partials.hpp, for grad).
// Functors run on the host and inside CUDA kernels.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "../core/config.hpp"
#include "../core/element_type.hpp"
#include "../core/vector_math.hpp"

namespace nax::detail::fn {

// Integer arithmetic wraps (two's complement) as XLA does, instead of signed overflow's
// undefined behaviour: computed in the unsigned type of the same size.
// Types narrower than int compute in unsigned int (uint16 * uint16 would promote to int).
template <class R>
NAX_HOST_DEVICE constexpr auto wrapping(R x) {
  if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) {
    using U = std::conditional_t<(sizeof(R) < sizeof(unsigned)), unsigned, std::make_unsigned_t<R>>;
    return static_cast<U>(x);
  } else {
    return x;
  }
}

// The families of functors, as CRTP bases: a functor states how one value is computed (its
// static `value`, in the family's computation type) and its base gives the result type and
// the call operator, converting the arguments as the family does. So an op is a plain struct,
// and its derivatives (partials.hpp) are more of the same.

// Keeps the element type: value(A x) -> A.
template <class Op>
struct same_type_unary {
  template <class A>
  using result = A;
  template <class A>
  NAX_HOST_DEVICE constexpr A operator()(A x) const {
    return Op::value(x);
  }
};
// A floating result (floating_t: float stays float, int32 gives float, int64 double):
// value(R x) with x converted to R.
template <class Op>
struct float_unary {
  template <class A>
  using result = floating_t<A>;
  template <class A>
  NAX_HOST_DEVICE floating_t<A> operator()(A a) const {
    return Op::value(static_cast<floating_t<A>>(a));
  }
};
// Arithmetic on the promoted type of both operands: value(R x, R y).
template <class Op>
struct promoting_binary {
  template <class A, class B>
  using result = promote_t<A, B>;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr promote_t<A, B> operator()(A a, B b) const {
    using R = promote_t<A, B>;
    return Op::value(static_cast<R>(a), static_cast<R>(b));
  }
};
// A floating result of both operands: value(R x, R y), R the floating type of the promoted one.
template <class Op>
struct float_binary {
  template <class A, class B>
  using result = floating_t<promote_t<A, B>>;
  template <class A, class B>
  NAX_HOST_DEVICE floating_t<promote_t<A, B>> operator()(A a, B b) const {
    using R = floating_t<promote_t<A, B>>;
    return Op::value(static_cast<R>(a), static_cast<R>(b));
  }
};
// Compares the promoted values: value(R x, R y) -> bool.
template <class Op>
struct comparison {
  template <class A, class B>
  using result = bool;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr bool operator()(A a, B b) const {
    using R = promote_t<A, B>;
    return Op::value(static_cast<R>(a), static_cast<R>(b));
  }
};
// A predicate on floating values, value(A a) -> bool; integers and bool are finite numbers,
// for which the answer is Integer.
template <class Op, bool Integer>
struct float_predicate {
  template <class A>
  using result = bool;
  template <class A>
  NAX_HOST_DEVICE constexpr bool operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) return Op::value(a);
    else return Integer;
  }
};

// Unary ops that keep the element type.
struct negate : same_type_unary<negate> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) {
    if constexpr (std::is_same_v<A, bool>) return x;
    else return static_cast<A>(-wrapping(x));
  }
};
struct abs : same_type_unary<abs> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) {
    if constexpr (std::is_unsigned_v<A>) return x;
    else return x < A(0) ? static_cast<A>(-wrapping(x)) : x;
  }
};
struct square : same_type_unary<square> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) { return static_cast<A>(wrapping(x) * wrapping(x)); }
};
// NaN stays NaN, as jax.nn.relu
struct relu : same_type_unary<relu> {
  template <class A> NAX_HOST_DEVICE static constexpr A value(A x) { return x < A(0) ? A(0) : x; }
};
// relu6 = min(max(x, 0), 6); NaN stays NaN.
struct relu6 : same_type_unary<relu6> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) { return x != x ? x : (x < A(0) ? A(0) : (x > A(6) ? A(6) : x)); }
};
// sign: -1, 0 or 1; -0.0 and NaN are returned as they are (as jnp.sign).
struct sign : same_type_unary<sign> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) {
    if constexpr (std::is_same_v<A, bool> || std::is_unsigned_v<A>) return x > A(0) ? A(1) : A(0);
    else return x > A(0) ? A(1) : (x < A(0) ? static_cast<A>(-1) : x);
  }
};
// Rounding keeps integers as they are (as jnp.floor and the others on integer arrays). round
// takes halves to the even neighbour (jnp.round): rint in the default rounding mode.
struct floor : same_type_unary<floor> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) {
    if constexpr (std::is_floating_point_v<A>) return std::floor(x);
    else return x;
  }
};
struct ceil : same_type_unary<ceil> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) {
    if constexpr (std::is_floating_point_v<A>) return std::ceil(x);
    else return x;
  }
};
struct trunc : same_type_unary<trunc> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) {
    if constexpr (std::is_floating_point_v<A>) return std::trunc(x);
    else return x;
  }
};
struct round : same_type_unary<round> {
  template <class A>
  NAX_HOST_DEVICE static constexpr A value(A x) {
    if constexpr (std::is_floating_point_v<A>) return std::rint(x);
    else return x;
  }
};

// stop_gradient: the identity on values; grad sends it no cotangent (autodiff/rules.hpp), and
// an evaluation of it inside grad records nothing (autodiff/tape.hpp).
struct stop_gradient {
  template <class A>
  using result = A;
  template <class A>
  NAX_HOST_DEVICE constexpr A operator()(A x) const {
    return x;
  }
};

// Unary ops with a floating result (floating_t: float stays float, int32 gives float, int64 double).
struct exp : float_unary<exp> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return vector_math::exp(x); }
};
struct log : float_unary<log> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::log(x); }
};
struct log1p : float_unary<log1p> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::log1p(x); }
};
struct expm1 : float_unary<expm1> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::expm1(x); }
};
struct sqrt : float_unary<sqrt> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::sqrt(x); }
};
struct rsqrt : float_unary<rsqrt> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / std::sqrt(x); }
};
struct sin : float_unary<sin> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::sin(x); }
};
struct cos : float_unary<cos> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::cos(x); }
};
struct tanh : float_unary<tanh> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return vector_math::tanh(x); }
};
struct erf : float_unary<erf> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::erf(x); }
};
struct sigmoid : float_unary<sigmoid> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return R(1) / (R(1) + vector_math::exp(-x)); }
};
// log(sigmoid(x)) = -softplus(-x), written so that neither branch overflows.
struct log_sigmoid : float_unary<log_sigmoid> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { return -(std::log1p(vector_math::exp(-std::abs(x))) + (x < R(0) ? -x : R(0))); }
};
struct tan : float_unary<tan> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::tan(x); }
};
struct arcsin : float_unary<arcsin> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::asin(x); }
};
struct arccos : float_unary<arccos> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::acos(x); }
};
struct arctan : float_unary<arctan> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::atan(x); }
};
struct sinh : float_unary<sinh> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::sinh(x); }
};
struct cosh : float_unary<cosh> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::cosh(x); }
};
struct arcsinh : float_unary<arcsinh> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::asinh(x); }
};
struct arccosh : float_unary<arccosh> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::acosh(x); }
};
struct arctanh : float_unary<arctanh> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return std::atanh(x); }
};
// softplus = log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large |x|.
struct softplus : float_unary<softplus> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { return (x > R(0) ? x : R(0)) + std::log1p(vector_math::exp(-std::abs(x))); }
};
struct silu : float_unary<silu> {
  template <class R> NAX_HOST_DEVICE static R value(R x) { return x / (R(1) + vector_math::exp(-x)); }
};
// gelu: x Phi(x) exactly (through erfc, as jax.nn.gelu(approximate=False)), or with tanh
// (jax.nn.gelu's default): x (1 + tanh(u)) / 2 with u = sqrt(2 / pi) (x + 0.044715 x^3),
// evaluated as x sigmoid(2u), the same function without the cancellation of 1 + tanh(u) for
// x < -3 (there float32 keeps no correct digit of the tanh form; tests/conformance/README.md).
struct gelu_exact : float_unary<gelu_exact> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) { return R(0.5) * x * std::erfc(-x * R(0.70710678118654752440)); }
};
struct gelu_tanh : float_unary<gelu_tanh> {
  template <class R>
  NAX_HOST_DEVICE static R value(R x) {
    return x / (R(1) + vector_math::exp(R(-1.5957691216057307118) * (x + R(0.044715) * (x * x * x))));
  }
};

// Arithmetic on the promoted type of both operands.
struct plus : promoting_binary<plus> {
  template <class R>
  NAX_HOST_DEVICE static constexpr R value(R x, R y) { return static_cast<R>(wrapping(x) + wrapping(y)); }
};
struct minus : promoting_binary<minus> {
  template <class R>
  NAX_HOST_DEVICE static constexpr R value(R x, R y) { return static_cast<R>(wrapping(x) - wrapping(y)); }
};
struct multiplies : promoting_binary<multiplies> {
  template <class R>
  NAX_HOST_DEVICE static constexpr R value(R x, R y) { return static_cast<R>(wrapping(x) * wrapping(y)); }
};
// Integer division by zero gives -1 (all bits set) and MIN / -1 gives MIN, as XLA does:
// defined results instead of undefined behaviour.
struct divides : promoting_binary<divides> {
  template <class R>
  NAX_HOST_DEVICE static constexpr R value(R x, R y) {
    if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) {
      if (y == R(0)) return static_cast<R>(~R(0));
      if constexpr (std::is_signed_v<R>)
        if (y == R(-1)) return x == std::numeric_limits<R>::min() ? x : static_cast<R>(-x);
      return static_cast<R>(x / y);
    } else {
      return static_cast<R>(x / y);
    }
  }
};
// NaN-propagating, as jnp.maximum / jnp.minimum.
struct maximum : promoting_binary<maximum> {
  template <class R> NAX_HOST_DEVICE static constexpr R value(R x, R y) { return (x != x || x > y) ? x : y; }
};
struct minimum : promoting_binary<minimum> {
  template <class R> NAX_HOST_DEVICE static constexpr R value(R x, R y) { return (x != x || x < y) ? x : y; }
};
struct pow : promoting_binary<pow> {
  template <class R>
  NAX_HOST_DEVICE static constexpr R value(R x, R y) {
    if constexpr (std::is_floating_point_v<R>) {
      return std::pow(x, y);
    } else {
      if (y < R(0)) return x == R(1) ? R(1) : (x == R(-1) ? ((y & R(1)) ? R(-1) : R(1)) : R(0));
      R result = 1;
      while (y != R(0)) {
        if (y & R(1)) result = static_cast<R>(wrapping(result) * wrapping(x));
        y = static_cast<R>(y >> 1);
        if (y != R(0)) x = static_cast<R>(wrapping(x) * wrapping(x));  // no square past the last bit
      }
      return result;
    }
  }
};

// Binary ops with a floating result.
struct arctan2 : float_binary<arctan2> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return std::atan2(x, y); }
};
struct hypot : float_binary<hypot> {
  template <class R> NAX_HOST_DEVICE static R value(R x, R y) { return std::hypot(x, y); }
};

// fmod: the remainder of truncated division (sign of x); remainder (jnp.remainder, jnp.mod):
// of floored division (sign of y). On integers a zero divisor gives 0, and MIN by -1 gives 0,
// as jnp.fmod and jnp.remainder do.
struct fmod {
  template <class A, class B>
  using result = promote_t<A, B>;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr promote_t<A, B> operator()(A a, B b) const {
    using R = promote_t<A, B>;
    R x = static_cast<R>(a), y = static_cast<R>(b);
    if constexpr (std::is_floating_point_v<R>) {
      return std::fmod(x, y);
    } else if constexpr (std::is_same_v<R, bool>) {
      (void)x;
      (void)y;
      return false;  // x mod true is 0; mod false is 0 too, as for the other integers
    } else {
      if (y == R(0)) return R(0);
      if constexpr (std::is_signed_v<R>)
        if (y == R(-1)) return R(0);
      return static_cast<R>(x % y);
    }
  }
};
struct remainder {
  template <class A, class B>
  using result = promote_t<A, B>;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr promote_t<A, B> operator()(A a, B b) const {
    using R = promote_t<A, B>;
    const R t = fmod{}(a, b);
    const R y = static_cast<R>(b);
    if constexpr (std::is_signed_v<R> || std::is_floating_point_v<R>) {
      if (t != R(0) && ((t < R(0)) != (y < R(0)))) return static_cast<R>(t + y);
    }
    return t;
  }
};

// Comparisons compare the promoted values and give bool.
struct less : comparison<less> {
  template <class R> NAX_HOST_DEVICE static constexpr bool value(R x, R y) { return x < y; }
};
struct less_equal : comparison<less_equal> {
  template <class R> NAX_HOST_DEVICE static constexpr bool value(R x, R y) { return x <= y; }
};
struct greater : comparison<greater> {
  template <class R> NAX_HOST_DEVICE static constexpr bool value(R x, R y) { return x > y; }
};
struct greater_equal : comparison<greater_equal> {
  template <class R> NAX_HOST_DEVICE static constexpr bool value(R x, R y) { return x >= y; }
};
struct equal_to : comparison<equal_to> {
  template <class R> NAX_HOST_DEVICE static constexpr bool value(R x, R y) { return x == y; }
};
struct not_equal_to : comparison<not_equal_to> {
  template <class R> NAX_HOST_DEVICE static constexpr bool value(R x, R y) { return x != y; }
};

// Predicates on floating values; integers and bool are finite numbers (the second argument of
// float_predicate: the answer for them).
struct is_finite : float_predicate<is_finite, true> {
  template <class A> NAX_HOST_DEVICE static constexpr bool value(A a) { return std::isfinite(a); }
};
struct is_nan : float_predicate<is_nan, false> {
  template <class A> NAX_HOST_DEVICE static constexpr bool value(A a) { return a != a; }
};
struct is_inf : float_predicate<is_inf, false> {
  template <class A>
  NAX_HOST_DEVICE static constexpr bool value(A a) {
    return a == std::numeric_limits<A>::infinity() || a == -std::numeric_limits<A>::infinity();
  }
};

struct logical_and {
  template <class A, class B>
  using result = bool;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr bool operator()(A a, B b) const { return bool(a) && bool(b); }
};
struct logical_or {
  template <class A, class B>
  using result = bool;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr bool operator()(A a, B b) const { return bool(a) || bool(b); }
};
struct logical_not {
  template <class A>
  using result = bool;
  template <class A>
  NAX_HOST_DEVICE constexpr bool operator()(A a) const { return !bool(a); }
};

// where(c, a, b): a where c holds, else b.
struct select {
  template <class C, class A, class B>
  using result = promote_t<A, B>;
  template <class C, class A, class B>
  NAX_HOST_DEVICE constexpr promote_t<A, B> operator()(C c, A a, B b) const {
    using R = promote_t<A, B>;
    return bool(c) ? static_cast<R>(a) : static_cast<R>(b);
  }
};

template <class T>
struct cast_to {
  template <class A>
  using result = T;
  template <class A>
  NAX_HOST_DEVICE constexpr T operator()(A a) const {
    // Through int: g++ 12 cannot vectorise bool -> floating conversions (same values).
    if constexpr (std::is_same_v<A, bool> && !std::is_same_v<T, bool>) {
      return static_cast<T>(static_cast<int>(a));
    } else if constexpr (std::is_floating_point_v<A> && std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // XLA's conversion, where C++'s is undefined: NaN gives 0, values outside T saturate
      if (a != a) return T(0);
      if (a >= static_cast<A>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
      if (a <= static_cast<A>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
      return static_cast<T>(a);
    } else {
      return static_cast<T>(a);
    }
  }
};

}  // namespace nax::detail::fn
