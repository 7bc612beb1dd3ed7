// Elementwise operations as small functors: one generic Map node serves all of them.
// Each functor gives its result type and its value; adding an op is one functor here
// and one builder line in math.hpp. Functors run on the host and inside CUDA kernels.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "../core/config.hpp"
#include "../core/element_type.hpp"

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

// Unary ops that keep the element type.
#define NAX_SAME_TYPE_UNARY(NAME, BODY)                           \
  struct NAME {                                                  \
    template <class A>                                           \
    using result = A;                                            \
    template <class A>                                           \
    NAX_HOST_DEVICE constexpr A operator()(A x) const { BODY; }   \
  };
NAX_SAME_TYPE_UNARY(negate, if constexpr (std::is_same_v<A, bool>) return x; else return static_cast<A>(-wrapping(x)))
NAX_SAME_TYPE_UNARY(abs, if constexpr (std::is_unsigned_v<A>) return x; else return x < A(0) ? static_cast<A>(-wrapping(x)) : x)
NAX_SAME_TYPE_UNARY(square, return static_cast<A>(wrapping(x) * wrapping(x)))
NAX_SAME_TYPE_UNARY(relu, return x < A(0) ? A(0) : x)  // NaN stays NaN, as jax.nn.relu
// relu6 = min(max(x, 0), 6); NaN stays NaN.
NAX_SAME_TYPE_UNARY(relu6, return x != x ? x : (x < A(0) ? A(0) : (x > A(6) ? A(6) : x)))
// sign: -1, 0 or 1; -0.0 and NaN are returned as they are (as jnp.sign).
NAX_SAME_TYPE_UNARY(sign, if constexpr (std::is_same_v<A, bool> || std::is_unsigned_v<A>) return x > A(0) ? A(1) : A(0);
                    else return x > A(0) ? A(1) : (x < A(0) ? static_cast<A>(-1) : x))
// Rounding keeps integers as they are (as jnp.floor and the others on integer arrays). round
// takes halves to the even neighbour (jnp.round): rint in the default rounding mode.
NAX_SAME_TYPE_UNARY(floor, if constexpr (std::is_floating_point_v<A>) return std::floor(x); else return x)
NAX_SAME_TYPE_UNARY(ceil, if constexpr (std::is_floating_point_v<A>) return std::ceil(x); else return x)
NAX_SAME_TYPE_UNARY(trunc, if constexpr (std::is_floating_point_v<A>) return std::trunc(x); else return x)
NAX_SAME_TYPE_UNARY(round, if constexpr (std::is_floating_point_v<A>) return std::rint(x); else return x)
#undef NAX_SAME_TYPE_UNARY

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
#define NAX_FLOAT_UNARY(NAME, BODY)                                              \
  struct NAME {                                                                 \
    template <class A>                                                          \
    using result = floating_t<A>;                                               \
    template <class A>                                                          \
    NAX_HOST_DEVICE floating_t<A> operator()(A a) const {                        \
      using R = floating_t<A>;                                                  \
      R x = static_cast<R>(a);                                                  \
      BODY;                                                                     \
    }                                                                           \
  };
NAX_FLOAT_UNARY(exp, return std::exp(x))
NAX_FLOAT_UNARY(log, return std::log(x))
NAX_FLOAT_UNARY(log1p, return std::log1p(x))
NAX_FLOAT_UNARY(expm1, return std::expm1(x))
NAX_FLOAT_UNARY(sqrt, return std::sqrt(x))
NAX_FLOAT_UNARY(rsqrt, return R(1) / std::sqrt(x))
NAX_FLOAT_UNARY(sin, return std::sin(x))
NAX_FLOAT_UNARY(cos, return std::cos(x))
NAX_FLOAT_UNARY(tanh, return std::tanh(x))
NAX_FLOAT_UNARY(erf, return std::erf(x))
NAX_FLOAT_UNARY(sigmoid, return R(1) / (R(1) + std::exp(-x)))
// log(sigmoid(x)) = -softplus(-x), written so that neither branch overflows.
NAX_FLOAT_UNARY(log_sigmoid, return -(std::log1p(std::exp(-std::abs(x))) + (x < R(0) ? -x : R(0))))
NAX_FLOAT_UNARY(tan, return std::tan(x))
NAX_FLOAT_UNARY(arcsin, return std::asin(x))
NAX_FLOAT_UNARY(arccos, return std::acos(x))
NAX_FLOAT_UNARY(arctan, return std::atan(x))
NAX_FLOAT_UNARY(sinh, return std::sinh(x))
NAX_FLOAT_UNARY(cosh, return std::cosh(x))
NAX_FLOAT_UNARY(arcsinh, return std::asinh(x))
NAX_FLOAT_UNARY(arccosh, return std::acosh(x))
NAX_FLOAT_UNARY(arctanh, return std::atanh(x))
// softplus = log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large |x|.
NAX_FLOAT_UNARY(softplus, return (x > R(0) ? x : R(0)) + std::log1p(std::exp(-std::abs(x))))
NAX_FLOAT_UNARY(silu, return x / (R(1) + std::exp(-x)))
// gelu: x Phi(x) exactly (through erfc, as jax.nn.gelu(approximate=False)), or with tanh
// (jax.nn.gelu's default): x (1 + tanh(u)) / 2 with u = sqrt(2 / pi) (x + 0.044715 x^3),
// evaluated as x sigmoid(2u), the same function without the cancellation of 1 + tanh(u) for
// x < -3 (there float32 keeps no correct digit of the tanh form; tests/conformance/README.md).
NAX_FLOAT_UNARY(gelu_exact, return R(0.5) * x * std::erfc(-x * R(0.70710678118654752440)))
NAX_FLOAT_UNARY(gelu_tanh,
                return x / (R(1) + std::exp(R(-1.5957691216057307118) * (x + R(0.044715) * (x * x * x)))))
#undef NAX_FLOAT_UNARY

// Arithmetic on the promoted type of both operands.
#define NAX_PROMOTING_BINARY(NAME, BODY)                                  \
  struct NAME {                                                          \
    template <class A, class B>                                          \
    using result = promote_t<A, B>;                                      \
    template <class A, class B>                                          \
    NAX_HOST_DEVICE constexpr promote_t<A, B> operator()(A a, B b) const { \
      using R = promote_t<A, B>;                                         \
      R x = static_cast<R>(a), y = static_cast<R>(b);                    \
      BODY;                                                              \
    }                                                                    \
  };
NAX_PROMOTING_BINARY(plus, return static_cast<R>(wrapping(x) + wrapping(y)))
NAX_PROMOTING_BINARY(minus, return static_cast<R>(wrapping(x) - wrapping(y)))
NAX_PROMOTING_BINARY(multiplies, return static_cast<R>(wrapping(x) * wrapping(y)))
// Integer division by zero gives -1 (all bits set) and MIN / -1 gives MIN, as XLA does:
// defined results instead of undefined behaviour.
NAX_PROMOTING_BINARY(divides, if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) {
  if (y == R(0)) return static_cast<R>(~R(0));
  if constexpr (std::is_signed_v<R>)
    if (y == R(-1)) return x == std::numeric_limits<R>::min() ? x : static_cast<R>(-x);
  return static_cast<R>(x / y);
} else return static_cast<R>(x / y))
// NaN-propagating, as jnp.maximum / jnp.minimum.
NAX_PROMOTING_BINARY(maximum, return (x != x || x > y) ? x : y)
NAX_PROMOTING_BINARY(minimum, return (x != x || x < y) ? x : y)
NAX_PROMOTING_BINARY(pow, if constexpr (std::is_floating_point_v<R>) return std::pow(x, y); else {
  if (y < R(0)) return x == R(1) ? R(1) : (x == R(-1) ? ((y & R(1)) ? R(-1) : R(1)) : R(0));
  R result = 1;
  while (y != R(0)) {
    if (y & R(1)) result = static_cast<R>(wrapping(result) * wrapping(x));
    y = static_cast<R>(y >> 1);
    if (y != R(0)) x = static_cast<R>(wrapping(x) * wrapping(x));  // no square past the last bit
  }
  return result;
})
#undef NAX_PROMOTING_BINARY

// Binary ops with a floating result.
#define NAX_FLOAT_BINARY(NAME, BODY)                                                       \
  struct NAME {                                                                           \
    template <class A, class B>                                                           \
    using result = floating_t<promote_t<A, B>>;                                           \
    template <class A, class B>                                                           \
    NAX_HOST_DEVICE floating_t<promote_t<A, B>> operator()(A a, B b) const {               \
      using R = floating_t<promote_t<A, B>>;                                              \
      R x = static_cast<R>(a), y = static_cast<R>(b);                                     \
      BODY;                                                                               \
    }                                                                                     \
  };
NAX_FLOAT_BINARY(arctan2, return std::atan2(x, y))
NAX_FLOAT_BINARY(hypot, return std::hypot(x, y))
#undef NAX_FLOAT_BINARY

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
#define NAX_COMPARISON(NAME, OP)                                       \
  struct NAME {                                                       \
    template <class A, class B>                                       \
    using result = bool;                                              \
    template <class A, class B>                                       \
    NAX_HOST_DEVICE constexpr bool operator()(A a, B b) const {        \
      using R = promote_t<A, B>;                                      \
      return static_cast<R>(a) OP static_cast<R>(b);                  \
    }                                                                 \
  };
NAX_COMPARISON(less, <)
NAX_COMPARISON(less_equal, <=)
NAX_COMPARISON(greater, >)
NAX_COMPARISON(greater_equal, >=)
NAX_COMPARISON(equal_to, ==)
NAX_COMPARISON(not_equal_to, !=)
#undef NAX_COMPARISON

// Predicates on floating values; integers and bool are finite numbers (INTEGER: the answer for them).
#define NAX_FLOAT_PREDICATE(NAME, BODY, INTEGER)                 \
  struct NAME {                                                 \
    template <class A>                                          \
    using result = bool;                                        \
    template <class A>                                          \
    NAX_HOST_DEVICE constexpr bool operator()(A a) const {       \
      if constexpr (std::is_floating_point_v<A>) return BODY;   \
      else return INTEGER;                                      \
    }                                                           \
  };
NAX_FLOAT_PREDICATE(is_finite, std::isfinite(a), true)
NAX_FLOAT_PREDICATE(is_nan, a != a, false)
NAX_FLOAT_PREDICATE(is_inf, a == std::numeric_limits<A>::infinity() || a == -std::numeric_limits<A>::infinity(), false)
#undef NAX_FLOAT_PREDICATE

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
#define NAX_DERIVATIVE_UNARY(BODY, ...)                                      \
  template <>                                                               \
  struct __VA_ARGS__ {                                                      \
    template <class A>                                                      \
    using result = floating_t<A>;                                           \
    template <class A>                                                      \
    NAX_HOST_DEVICE floating_t<A> operator()(A a) const {                    \
      using R = floating_t<A>;                                              \
      R x = static_cast<R>(a);                                              \
      (void)x;                                                              \
      BODY;                                                                 \
    }                                                                       \
  };
#define NAX_DERIVATIVE_BINARY(BODY, ...)                                      \
  template <>                                                                \
  struct __VA_ARGS__ {                                                       \
    template <class A, class B>                                              \
    using result = promote_t<A, B>;                                          \
    template <class A, class B>                                              \
    NAX_HOST_DEVICE promote_t<A, B> operator()(A a, B b) const {              \
      using R = promote_t<A, B>;                                             \
      R x = static_cast<R>(a), y = static_cast<R>(b);                        \
      (void)x;                                                               \
      (void)y;                                                               \
      BODY;                                                                  \
    }                                                                        \
  };
#define NAX_PARTIAL_UNARY(NAME, BODY) NAX_DERIVATIVE_UNARY(BODY, partial<NAME, 0>)
NAX_PARTIAL_UNARY(negate, (void)x; return R(-1))
NAX_PARTIAL_UNARY(abs, return x > R(0) ? R(1) : (x < R(0) ? R(-1) : R(0)))
NAX_PARTIAL_UNARY(square, return R(2) * x)
NAX_PARTIAL_UNARY(relu, return x > R(0) ? R(1) : R(0))
NAX_PARTIAL_UNARY(exp, return std::exp(x))
NAX_PARTIAL_UNARY(log, return R(1) / x)
NAX_PARTIAL_UNARY(log1p, return R(1) / (R(1) + x))
NAX_PARTIAL_UNARY(expm1, return std::exp(x))
NAX_PARTIAL_UNARY(sqrt, return R(0.5) / std::sqrt(x))
NAX_PARTIAL_UNARY(rsqrt, return R(-0.5) / (x * std::sqrt(x)))
NAX_PARTIAL_UNARY(sin, return std::cos(x))
NAX_PARTIAL_UNARY(cos, return -std::sin(x))
NAX_PARTIAL_UNARY(tanh, R t = std::tanh(x); return R(1) - t * t)
NAX_PARTIAL_UNARY(erf, return R(1.1283791670955126) * std::exp(-x * x))  // 2 / sqrt(pi)
NAX_PARTIAL_UNARY(sigmoid, R s = R(1) / (R(1) + std::exp(-x)); return s * (R(1) - s))
NAX_PARTIAL_UNARY(log_sigmoid, return R(1) / (R(1) + std::exp(x)))  // sigmoid(-x)
NAX_PARTIAL_UNARY(relu6, return x > R(0) && x < R(6) ? R(1) : R(0))  // 0 at both kinks, as jax.nn.relu6
NAX_PARTIAL_UNARY(sign, return R(0))
NAX_PARTIAL_UNARY(floor, return R(0))
NAX_PARTIAL_UNARY(ceil, return R(0))
NAX_PARTIAL_UNARY(trunc, return R(0))
NAX_PARTIAL_UNARY(round, return R(0))
NAX_PARTIAL_UNARY(tan, R t = std::tan(x); return R(1) + t * t)
NAX_PARTIAL_UNARY(arcsin, return R(1) / std::sqrt(R(1) - x * x))
NAX_PARTIAL_UNARY(arccos, return R(-1) / std::sqrt(R(1) - x * x))
NAX_PARTIAL_UNARY(arctan, return R(1) / (R(1) + x * x))
NAX_PARTIAL_UNARY(sinh, return std::cosh(x))
NAX_PARTIAL_UNARY(cosh, return std::sinh(x))
NAX_PARTIAL_UNARY(arcsinh, return R(1) / std::sqrt(x * x + R(1)))
NAX_PARTIAL_UNARY(arccosh, return R(1) / (std::sqrt(x - R(1)) * std::sqrt(x + R(1))))
NAX_PARTIAL_UNARY(arctanh, return R(1) / (R(1) - x * x))
NAX_PARTIAL_UNARY(softplus, return R(1) / (R(1) + std::exp(-x)))  // sigmoid
NAX_PARTIAL_UNARY(silu, R s = R(1) / (R(1) + std::exp(-x)); return s * (R(1) + x * (R(1) - s)))
// Phi(x) + x phi(x), phi the standard normal density (1 / sqrt(2 pi) = 0.3989...).
NAX_PARTIAL_UNARY(gelu_exact, return R(0.5) * std::erfc(-x * R(0.70710678118654752440)) +
                                     x * R(0.39894228040143267794) * std::exp(R(-0.5) * x * x))
// gelu_tanh = x s with s = sigmoid(2u), u = k (x + 0.044715 x^3); n = sigmoid(-2u) = 1 - s
// computed as such (no cancellation): s + 2 x s n u'.
NAX_PARTIAL_UNARY(gelu_tanh, const R k = R(0.79788456080286535588);
                  R u = k * (x + R(0.044715) * (x * x * x));
                  R s = R(1) / (R(1) + std::exp(R(-2) * u));
                  R n = R(1) / (R(1) + std::exp(R(2) * u));
                  R du = k * (R(1) + R(3) * R(0.044715) * x * x);
                  return s + R(2) * x * s * n * du)
#undef NAX_PARTIAL_UNARY

#define NAX_PARTIAL_BINARY(NAME, K, BODY) NAX_DERIVATIVE_BINARY(BODY, partial<NAME, K>)
NAX_PARTIAL_BINARY(plus, 0, return R(1))
NAX_PARTIAL_BINARY(plus, 1, return R(1))
NAX_PARTIAL_BINARY(minus, 0, return R(1))
NAX_PARTIAL_BINARY(minus, 1, return R(-1))
NAX_PARTIAL_BINARY(multiplies, 0, return y)
NAX_PARTIAL_BINARY(multiplies, 1, return x)
NAX_PARTIAL_BINARY(divides, 0, return R(1) / y)
NAX_PARTIAL_BINARY(divides, 1, return -x / (y * y))
NAX_PARTIAL_BINARY(maximum, 0, return x > y ? R(1) : (x == y ? R(0.5) : R(0)))
NAX_PARTIAL_BINARY(maximum, 1, return y > x ? R(1) : (x == y ? R(0.5) : R(0)))
NAX_PARTIAL_BINARY(minimum, 0, return x < y ? R(1) : (x == y ? R(0.5) : R(0)))
NAX_PARTIAL_BINARY(minimum, 1, return y < x ? R(1) : (x == y ? R(0.5) : R(0)))
// As jax.lax.pow: d/dx = y x^(y-1) (0 where y = 0), d/dy = log(x) x^y (0 where x = 0).
NAX_PARTIAL_BINARY(pow, 0, return y == R(0) ? R(0) : y * std::pow(x, y - R(1)))
NAX_PARTIAL_BINARY(pow, 1, return x == R(0) ? R(0) : std::log(x) * std::pow(x, y))
NAX_PARTIAL_BINARY(arctan2, 0, return y / (x * x + y * y))
NAX_PARTIAL_BINARY(arctan2, 1, return -x / (x * x + y * y))
NAX_PARTIAL_BINARY(hypot, 0, return x / std::hypot(x, y))
NAX_PARTIAL_BINARY(hypot, 1, return y / std::hypot(x, y))
// As lax.rem's and jnp.remainder's: 1 for x; -trunc(x / y), resp. -floor(x / y), for y.
NAX_PARTIAL_BINARY(fmod, 0, return R(1))
NAX_PARTIAL_BINARY(fmod, 1, return -std::trunc(x / y))
NAX_PARTIAL_BINARY(remainder, 0, return R(1))
NAX_PARTIAL_BINARY(remainder, 1, return -std::floor(x / y))
#undef NAX_PARTIAL_BINARY

// Second derivatives, for grad(grad(f)): partial<partial<F, J>, K> = d^2 F / dx_J dx_K. The
// backward pass of a first derivative is made of partial<F, J> nodes, so differentiating it
// once more needs these. Third derivatives are not provided (grad of grad of grad does not
// compile).
#define NAX_SECOND_PARTIAL_UNARY(NAME, BODY) NAX_DERIVATIVE_UNARY(BODY, partial<partial<NAME, 0>, 0>)
NAX_SECOND_PARTIAL_UNARY(negate, return R(0))
NAX_SECOND_PARTIAL_UNARY(abs, return R(0))
NAX_SECOND_PARTIAL_UNARY(square, return R(2))
NAX_SECOND_PARTIAL_UNARY(relu, return R(0))
NAX_SECOND_PARTIAL_UNARY(exp, return std::exp(x))
NAX_SECOND_PARTIAL_UNARY(log, return R(-1) / (x * x))
NAX_SECOND_PARTIAL_UNARY(log1p, return R(-1) / ((R(1) + x) * (R(1) + x)))
NAX_SECOND_PARTIAL_UNARY(expm1, return std::exp(x))
NAX_SECOND_PARTIAL_UNARY(sqrt, return R(-0.25) / (x * std::sqrt(x)))
NAX_SECOND_PARTIAL_UNARY(rsqrt, return R(0.75) / (x * x * std::sqrt(x)))
NAX_SECOND_PARTIAL_UNARY(sin, return -std::sin(x))
NAX_SECOND_PARTIAL_UNARY(cos, return -std::cos(x))
NAX_SECOND_PARTIAL_UNARY(tanh, R t = std::tanh(x); return R(-2) * t * (R(1) - t * t))
NAX_SECOND_PARTIAL_UNARY(erf, return R(-2.2567583341910252) * x * std::exp(-x * x))  // -4 x / sqrt(pi) e^(-x^2)
NAX_SECOND_PARTIAL_UNARY(sigmoid, R s = R(1) / (R(1) + std::exp(-x)); return s * (R(1) - s) * (R(1) - R(2) * s))
NAX_SECOND_PARTIAL_UNARY(log_sigmoid, R s = R(1) / (R(1) + std::exp(-x)); return -s * (R(1) - s))
NAX_SECOND_PARTIAL_UNARY(relu6, return R(0))
NAX_SECOND_PARTIAL_UNARY(sign, return R(0))
NAX_SECOND_PARTIAL_UNARY(floor, return R(0))
NAX_SECOND_PARTIAL_UNARY(ceil, return R(0))
NAX_SECOND_PARTIAL_UNARY(trunc, return R(0))
NAX_SECOND_PARTIAL_UNARY(round, return R(0))
NAX_SECOND_PARTIAL_UNARY(tan, R t = std::tan(x); return R(2) * t * (R(1) + t * t))
NAX_SECOND_PARTIAL_UNARY(arcsin, R q = R(1) - x * x; return x / (q * std::sqrt(q)))
NAX_SECOND_PARTIAL_UNARY(arccos, R q = R(1) - x * x; return -x / (q * std::sqrt(q)))
NAX_SECOND_PARTIAL_UNARY(arctan, R q = R(1) + x * x; return R(-2) * x / (q * q))
NAX_SECOND_PARTIAL_UNARY(sinh, return std::sinh(x))
NAX_SECOND_PARTIAL_UNARY(cosh, return std::cosh(x))
NAX_SECOND_PARTIAL_UNARY(arcsinh, R q = x * x + R(1); return -x / (q * std::sqrt(q)))
NAX_SECOND_PARTIAL_UNARY(arccosh, R q = x * x - R(1); return -x / (q * std::sqrt(q)))
NAX_SECOND_PARTIAL_UNARY(arctanh, R q = R(1) - x * x; return R(2) * x / (q * q))
NAX_SECOND_PARTIAL_UNARY(softplus, R s = R(1) / (R(1) + std::exp(-x)); return s * (R(1) - s))
NAX_SECOND_PARTIAL_UNARY(silu, R s = R(1) / (R(1) + std::exp(-x));
                         return s * (R(1) - s) * (R(2) + x * (R(1) - R(2) * s)))
NAX_SECOND_PARTIAL_UNARY(gelu_exact, return (R(2) - x * x) * R(0.39894228040143267794) * std::exp(R(-0.5) * x * x))
// d/dx [s + 2 x s n u'] with s' = 2 s n u', (s n)' = 2 s n u' (n - s), u'' = 6 k 0.044715 x.
NAX_SECOND_PARTIAL_UNARY(gelu_tanh, const R k = R(0.79788456080286535588);
                         R u = k * (x + R(0.044715) * (x * x * x));
                         R s = R(1) / (R(1) + std::exp(R(-2) * u));
                         R n = R(1) / (R(1) + std::exp(R(2) * u));
                         R du = k * (R(1) + R(3) * R(0.044715) * x * x);
                         R ddu = R(6) * k * R(0.044715) * x;
                         return R(4) * s * n * du + x * (R(4) * s * n * (n - s) * du * du + R(2) * s * n * ddu))
#undef NAX_SECOND_PARTIAL_UNARY

#define NAX_SECOND_PARTIAL_BINARY(NAME, J, K, BODY) NAX_DERIVATIVE_BINARY(BODY, partial<partial<NAME, J>, K>)
#define NAX_SECOND_PARTIALS_ZERO(NAME)              \
  NAX_SECOND_PARTIAL_BINARY(NAME, 0, 0, return R(0)) \
  NAX_SECOND_PARTIAL_BINARY(NAME, 0, 1, return R(0)) \
  NAX_SECOND_PARTIAL_BINARY(NAME, 1, 0, return R(0)) \
  NAX_SECOND_PARTIAL_BINARY(NAME, 1, 1, return R(0))
NAX_SECOND_PARTIALS_ZERO(plus)
NAX_SECOND_PARTIALS_ZERO(minus)
NAX_SECOND_PARTIALS_ZERO(maximum)  // piecewise constant first derivatives
NAX_SECOND_PARTIALS_ZERO(minimum)
NAX_SECOND_PARTIALS_ZERO(fmod)  // piecewise constant first derivatives
NAX_SECOND_PARTIALS_ZERO(remainder)
#undef NAX_SECOND_PARTIALS_ZERO
NAX_SECOND_PARTIAL_BINARY(multiplies, 0, 0, return R(0))
NAX_SECOND_PARTIAL_BINARY(multiplies, 0, 1, return R(1))
NAX_SECOND_PARTIAL_BINARY(multiplies, 1, 0, return R(1))
NAX_SECOND_PARTIAL_BINARY(multiplies, 1, 1, return R(0))
NAX_SECOND_PARTIAL_BINARY(divides, 0, 0, return R(0))
NAX_SECOND_PARTIAL_BINARY(divides, 0, 1, return R(-1) / (y * y))
NAX_SECOND_PARTIAL_BINARY(divides, 1, 0, return R(-1) / (y * y))
NAX_SECOND_PARTIAL_BINARY(divides, 1, 1, return R(2) * x / (y * y * y))
// pow's first partials as jax.lax.pow's (0 where y = 0, resp. x = 0); their derivatives there too.
NAX_SECOND_PARTIAL_BINARY(pow, 0, 0, return y == R(0) ? R(0) : y * (y - R(1)) * std::pow(x, y - R(2)))
NAX_SECOND_PARTIAL_BINARY(pow, 0, 1,
                          return y == R(0) ? R(0) : std::pow(x, y - R(1)) * (R(1) + y * std::log(x)))
NAX_SECOND_PARTIAL_BINARY(pow, 1, 0,
                          return x == R(0) ? R(0) : std::pow(x, y - R(1)) * (R(1) + y * std::log(x)))
NAX_SECOND_PARTIAL_BINARY(pow, 1, 1, return x == R(0) ? R(0) : std::log(x) * std::log(x) * std::pow(x, y))
// arctan2: with r2 = x^2 + y^2, d/dx = y / r2 and d/dy = -x / r2.
NAX_SECOND_PARTIAL_BINARY(arctan2, 0, 0, R r2 = x * x + y * y; return R(-2) * x * y / (r2 * r2))
NAX_SECOND_PARTIAL_BINARY(arctan2, 0, 1, R r2 = x * x + y * y; return (x * x - y * y) / (r2 * r2))
NAX_SECOND_PARTIAL_BINARY(arctan2, 1, 0, R r2 = x * x + y * y; return (x * x - y * y) / (r2 * r2))
NAX_SECOND_PARTIAL_BINARY(arctan2, 1, 1, R r2 = x * x + y * y; return R(2) * x * y / (r2 * r2))
// hypot h: d/dx = x / h, d/dy = y / h.
NAX_SECOND_PARTIAL_BINARY(hypot, 0, 0, R h = std::hypot(x, y); return y * y / (h * h * h))
NAX_SECOND_PARTIAL_BINARY(hypot, 0, 1, R h = std::hypot(x, y); return -x * y / (h * h * h))
NAX_SECOND_PARTIAL_BINARY(hypot, 1, 0, R h = std::hypot(x, y); return -x * y / (h * h * h))
NAX_SECOND_PARTIAL_BINARY(hypot, 1, 1, R h = std::hypot(x, y); return x * x / (h * h * h))
#undef NAX_SECOND_PARTIAL_BINARY
#undef NAX_DERIVATIVE_UNARY
#undef NAX_DERIVATIVE_BINARY

}  // namespace nax::detail::fn
