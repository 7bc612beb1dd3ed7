// Element types and their promotion. Arithmetic types only; promotion follows C++ for
// same-kind mixes, JAX where C++ would silently change values (int32 + uint32 -> int64),
// and refuses uint64 with a signed integer, which has no exact common type.
#pragma once
#include <concepts>
#include <cstdint>
#include <type_traits>

namespace nax {

template <class T>
concept element = std::is_arithmetic_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T>;

namespace detail {

// 0 bool, 1 integer, 2 floating: a scalar of a lower kind adopts the array's type.
template <class T>
inline constexpr int kind_v = std::is_same_v<T, bool> ? 0 : (std::is_floating_point_v<T> ? 2 : 1);

template <class A, class B>
inline constexpr bool promotable_v =
    !(std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, bool> &&
      !std::is_same_v<B, bool> && std::is_signed_v<A> != std::is_signed_v<B> &&
      sizeof(std::conditional_t<std::is_signed_v<A>, B, A>) >= 8);

template <class A, class B>
struct require_promotable {
  static_assert(promotable_v<A, B>,
                "nax: no promotion is defined between these element types: a 64-bit unsigned "
                "integer and a signed integer have no exact common type; convert one with nax::cast<T>");
  static constexpr bool value = true;
};

template <class A, class B>
constexpr auto promote_impl() {
  if constexpr (std::is_same_v<A, B>) {
    return A{};
  } else if constexpr (std::is_same_v<A, bool>) {
    return B{};
  } else if constexpr (std::is_same_v<B, bool>) {
    return A{};
  } else if constexpr (std::is_floating_point_v<A> || std::is_floating_point_v<B>) {
    if constexpr (std::is_floating_point_v<A> && std::is_floating_point_v<B>)
      return std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>{};
    else
      return std::conditional_t<std::is_floating_point_v<A>, A, B>{};
  } else if constexpr (std::is_signed_v<A> == std::is_signed_v<B>) {
    return std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>{};
  } else {
    static_assert(require_promotable<A, B>::value);
    using S = std::conditional_t<std::is_signed_v<A>, A, B>;
    using U = std::conditional_t<std::is_signed_v<A>, B, A>;
    // The smallest signed type that holds both, as JAX: int8 + uint8 -> int16, int32 + uint32 -> int64.
    if constexpr (sizeof(S) > sizeof(U))
      return S{};
    else if constexpr (sizeof(U) == 1)
      return std::int16_t{};
    else if constexpr (sizeof(U) == 2)
      return std::int32_t{};
    else
      return std::int64_t{};
  }
}

}  // namespace detail

template <class A, class B>
using promote_t = decltype(detail::promote_impl<A, B>());

namespace detail {
template <class T>
struct promote_wrap {
  using type = T;
};
template <class A, class B>
promote_wrap<promote_t<A, B>> operator|(promote_wrap<A>, promote_wrap<B>);
}  // namespace detail
// The common type of several element types.
template <class... Ts>
using promote_all_t = typename decltype((detail::promote_wrap<Ts>{} | ...))::type;

namespace detail {
// promote_t, computed only when asked for (uint64 next to a weak int must not instantiate it).
template <class A, class B>
struct lazy_promote {
  using type = promote_t<A, B>;
};
}  // namespace detail

// The type a C++ scalar takes next to an array of type ArrayT: JAX's weak typing.
template <class ArrayT, class ScalarT>
using weak_promote_t =
    typename std::conditional_t<(detail::kind_v<ScalarT> <= detail::kind_v<ArrayT>), std::type_identity<ArrayT>,
                                detail::lazy_promote<ArrayT, ScalarT>>::type;

// The floating type transcendental functions and mean return, as JAX's to_inexact_dtype:
// floating types stay, bool and integers of up to 32 bits give float, 64-bit integers double.
template <class T>
using floating_t =
    std::conditional_t<std::is_floating_point_v<T>, T, std::conditional_t<(sizeof(T) <= 4), float, double>>;

}  // namespace nax
