// Bitwise operations on integer and bool elements, as jax.numpy's: bitwise_and, bitwise_or,
// bitwise_xor, bitwise_not (and its alias invert), left_shift, right_shift, and the operators
// & | ^ ~ << >> on nax expressions. Binary ones broadcast by name and promote as the other
// binary ops (promote_t; C++ numbers weakly). Floating operands do not compile.
//
// Shifts have no undefined behaviour, as XLA's: an amount that is negative or at least the bit
// width gives 0 for left_shift and for right_shift of unsigned types (logical), and the sign
// fill (-1 or 0) for right_shift of signed types (arithmetic). Shifts of two bools compute in
// int32, as jnp.left_shift(bool, bool) does.
#pragma once
#include <cstdint>
#include <type_traits>

#include "math.hpp"

namespace nax::detail::fn {

// and, or, xor of the promoted values; bool stays bool (logical, as jnp on bools).
#define NAX_BITWISE_BINARY(NAME, OP)                                       \
  struct NAME {                                                           \
    template <class A, class B>                                           \
    using result = promote_t<A, B>;                                       \
    template <class A, class B>                                           \
    NAX_HOST_DEVICE constexpr promote_t<A, B> operator()(A a, B b) const { \
      using R = promote_t<A, B>;                                          \
      return static_cast<R>(static_cast<R>(a) OP static_cast<R>(b));      \
    }                                                                     \
  };
NAX_BITWISE_BINARY(bitwise_and, &)
NAX_BITWISE_BINARY(bitwise_or, |)
NAX_BITWISE_BINARY(bitwise_xor, ^)
#undef NAX_BITWISE_BINARY

// ~x; on bool the logical not (jnp.bitwise_not of bools).
struct bitwise_not {
  template <class A>
  using result = A;
  template <class A>
  NAX_HOST_DEVICE constexpr A operator()(A x) const {
    if constexpr (std::is_same_v<A, bool>) return !x;
    else return static_cast<A>(~x);
  }
};

// The type a shift computes in: the promoted one, int32 for two bools.
template <class A, class B>
using shift_t = std::conditional_t<std::is_same_v<promote_t<A, B>, bool>, std::int32_t, promote_t<A, B>>;

// Whether shifting an R by s is defined in C++: 0 <= s < the bit width of R.
template <class R>
NAX_HOST_DEVICE constexpr bool shift_in_range(R s) {
  constexpr int bits = int(sizeof(R) * 8);
  if constexpr (std::is_signed_v<R>) return s >= R(0) && s < R(bits);
  else return s < R(bits);
}

// In the unsigned type (wrapping), so that shifting a negative value or into the sign bit is defined.
struct left_shift {
  template <class A, class B>
  using result = shift_t<A, B>;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr shift_t<A, B> operator()(A a, B b) const {
    using R = shift_t<A, B>;
    const R x = static_cast<R>(a), s = static_cast<R>(b);
    return shift_in_range(s) ? static_cast<R>(wrapping(x) << s) : R(0);
  }
};
// Arithmetic for signed types (C++20 defines >> of a negative value so), logical for unsigned.
struct right_shift {
  template <class A, class B>
  using result = shift_t<A, B>;
  template <class A, class B>
  NAX_HOST_DEVICE constexpr shift_t<A, B> operator()(A a, B b) const {
    using R = shift_t<A, B>;
    const R x = static_cast<R>(a), s = static_cast<R>(b);
    if (shift_in_range(s)) return static_cast<R>(x >> s);
    if constexpr (std::is_signed_v<R>) return x < R(0) ? R(-1) : R(0);
    else return R(0);
  }
};

}  // namespace nax::detail::fn

namespace nax {
namespace detail {

template <class... Ts>
struct require_integer_elements {
  static_assert((std::is_integral_v<Ts> && ...),
                "nax: bitwise operations (bitwise_and, bitwise_or, bitwise_xor, bitwise_not, invert, left_shift, "
                "right_shift and the operators & | ^ ~ << >>) take integer or bool elements, and an operand's "
                "element type (Ts) is floating point: compare it first (x > 0) or convert it with "
                "nax::cast<std::int32_t>(x)");
  static constexpr bool value = true;
};

// The element type of an operand as given (a C++ number's own type, before weak promotion).
template <class X>
using operand_element_t = typename expr_t<X>::value_type;

template <class F, class A, class B>
auto make_bitwise(A&& a, B&& b) {
  static_assert(require_integer_elements<operand_element_t<A>, operand_element_t<B>>::value);
  return make_binary<F>(std::forward<A>(a), std::forward<B>(b));
}

}  // namespace detail

// Binary: broadcast by name; the element type is the operands' promoted one (a C++ number
// adopts the array's), a shift of two bools gives int32.
#define NAX_BITWISE_FUNCTION(NAME, FN)                                                     \
  template <class A, class B>                                                              \
    requires binary_operands<A, B>                                                         \
  auto NAME(A&& a, B&& b) {                                                                \
    return detail::make_bitwise<detail::fn::FN>(std::forward<A>(a), std::forward<B>(b));   \
  }
NAX_BITWISE_FUNCTION(bitwise_and, bitwise_and)
NAX_BITWISE_FUNCTION(bitwise_or, bitwise_or)
NAX_BITWISE_FUNCTION(bitwise_xor, bitwise_xor)
NAX_BITWISE_FUNCTION(left_shift, left_shift)
NAX_BITWISE_FUNCTION(right_shift, right_shift)
// Both operands must be nax arrays, expressions or numbers, one of them not a number
// (binary_operands): std::ostream's << (print.hpp's for arrays) and std::istream's >> never meet these.
NAX_BITWISE_FUNCTION(operator&, bitwise_and)
NAX_BITWISE_FUNCTION(operator|, bitwise_or)
NAX_BITWISE_FUNCTION(operator^, bitwise_xor)
NAX_BITWISE_FUNCTION(operator<<, left_shift)
NAX_BITWISE_FUNCTION(operator>>, right_shift)
#undef NAX_BITWISE_FUNCTION

#define NAX_BITWISE_UNARY(NAME)                                                          \
  template <class X>                                                                     \
    requires array_like<X>                                                               \
  auto NAME(X&& x) {                                                                     \
    static_assert(detail::require_integer_elements<detail::operand_element_t<X>>::value); \
    return detail::make_map<detail::fn::bitwise_not>(std::forward<X>(x));                \
  }
NAX_BITWISE_UNARY(bitwise_not)
NAX_BITWISE_UNARY(invert)  // jnp.invert: the same function
NAX_BITWISE_UNARY(operator~)
#undef NAX_BITWISE_UNARY

}  // namespace nax
