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

struct is_finite {
  template <class A>
  using result = bool;
  template <class A>
  NAX_HOST_DEVICE constexpr bool operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) return std::isfinite(a);
    else return true;
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
    if constexpr (std::is_same_v<A, bool> && !std::is_same_v<T, bool>) return static_cast<T>(static_cast<int>(a));
    else return static_cast<T>(a);
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
#undef NAX_SECOND_PARTIAL_BINARY
#undef NAX_DERIVATIVE_UNARY
#undef NAX_DERIVATIVE_BINARY

}  // namespace nax::detail::fn
