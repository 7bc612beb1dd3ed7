// The programs of family `bitwise` (data/bitwise/): bitwise_and/or/xor, bitwise_not, invert,
// left_shift and right_shift on int8, uint8, int32, uint32, int64 and bool, with the second
// operand along b only (broadcast), mixed operand types and C++ numbers. Each result's element
// type must be JAX's (the case's `result`), its values JAX's exactly. Over a backend B
// (backend.hpp): bitwise_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the
// CUDA backend.
#pragma once
#include "backend.hpp"

namespace conf_bitwise {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;

// A case's input as T. int8 and uint8 data are stored widened to int32 and uint32 (npy.hpp reads
// 4- and 8-byte integers and bools); the values fit T.
template <class B, class T, class... As>
auto input(const npy::Array& x) {
  if constexpr (sizeof(T) >= 4 || std::is_same_v<T, bool>)
    return B::template input<T, As...>(x);
  else
    return B::eval(nax::cast<T>(B::template input<std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>, As...>(x)));
}

// JAX's result type (its name) and values against e's.
template <class B, class E>
std::string check_typed(const Case& c, const E& e) {
  using R = typename std::remove_cvref_t<E>::value_type;
  if (c.param("result") != conf::dtype_name<R>()) return std::string("result type: nax ") + conf::dtype_name<R>() + ", jax " + c.param("result");
  return conf::check<B>(c, e);
}

template <class B, class T>
std::string same_type(const Case& c) {
  const std::string& op = c.op;
  const auto x = input<B, T, a, b>(c.in[0]);
  if (op == "not") return check_typed<B>(c, nax::bitwise_not(x));
  if (op == "invert") return check_typed<B>(c, ~x);
  if (c.has("layout")) {  // the second operand along b only
    const auto y = input<B, T, b>(c.in[1]);
    if (op == "and") return check_typed<B>(c, x & y);
    if (op == "right_shift") return check_typed<B>(c, nax::right_shift(x, y));
    return "unknown op " + op + " with layout " + c.param("layout");
  }
  const auto y = input<B, T, a, b>(c.in[1]);
  if (op == "and") return check_typed<B>(c, nax::bitwise_and(x, y));
  if (op == "or") return check_typed<B>(c, x | y);
  if (op == "xor") return check_typed<B>(c, nax::bitwise_xor(x, y));
  if (op == "left_shift") return check_typed<B>(c, x << y);
  if (op == "right_shift") return check_typed<B>(c, x >> y);
  return "unknown op " + op;
}

template <class B, class X, class Y, class F>
std::string mixed(const Case& c, F f) {
  if constexpr (B::template instantiates<X>() && B::template instantiates<Y>()) {
    const auto x = input<B, X, a, b>(c.in[0]);
    const auto y = input<B, Y, a, b>(c.in[1]);
    return check_typed<B>(c, f(x, y));
  } else {
    return conf::skip_because(B::not_instantiated(std::string(conf::dtype_name<X>()) + " or " + conf::dtype_name<Y>()));
  }
}

// fn(T{}) for the T named dt; a T the backend does not instantiate is skipped with its reason.
template <class B, class... Ts, class F>
std::string by_type(const std::string& dt, F fn) {
  std::string result = "unknown dtype " + dt;
  auto try_one = [&](auto t) {
    using T = decltype(t);
    if (dt != conf::dtype_name<T>()) return false;
    if constexpr (B::template instantiates<T>()) result = fn(t);
    else result = conf::skip_because(B::not_instantiated(conf::dtype_name<T>()));
    return true;
  };
  (try_one(Ts{}) || ...);
  return result;
}

template <class B>
std::string run(const Case& c) {
  const std::string& op = c.op;
  if (c.has("other")) {
    const std::string pair = c.dtype() + "," + c.param("other") + "," + op;
    auto bit_and = [](const auto& x, const auto& y) { return x & y; };
    auto bit_or = [](const auto& x, const auto& y) { return nax::bitwise_or(x, y); };
    auto bit_xor = [](const auto& x, const auto& y) { return x ^ y; };
    auto shl = [](const auto& x, const auto& y) { return nax::left_shift(x, y); };
    auto shr = [](const auto& x, const auto& y) { return x >> y; };
    if (pair == "int8,uint8,and") return mixed<B, std::int8_t, std::uint8_t>(c, bit_and);
    if (pair == "uint8,int8,left_shift") return mixed<B, std::uint8_t, std::int8_t>(c, shl);
    if (pair == "int8,uint8,right_shift") return mixed<B, std::int8_t, std::uint8_t>(c, shr);
    if (pair == "int32,uint32,xor") return mixed<B, std::int32_t, std::uint32_t>(c, bit_xor);
    if (pair == "int8,int32,left_shift") return mixed<B, std::int8_t, std::int32_t>(c, shl);
    if (pair == "bool,int8,or") return mixed<B, bool, std::int8_t>(c, bit_or);
    if (pair == "int32,bool,right_shift") return mixed<B, std::int32_t, bool>(c, shr);
    if (pair == "uint32,int64,right_shift") return mixed<B, std::uint32_t, std::int64_t>(c, shr);
    return "unknown mixed case " + pair;
  }
  if (c.has("number")) {  // a C++ number next to an array: it takes the array's type
    const std::int64_t n = c.integer("number");
    if (op == "and_number" && c.dtype() == "int8") {
      if constexpr (B::template instantiates<std::int8_t>()) return check_typed<B>(c, input<B, std::int8_t, a, b>(c.in[0]) & n);
      else return conf::skip_because(B::not_instantiated("int8"));
    }
    if (op == "and_number") {
      if constexpr (B::template instantiates<std::uint8_t>()) return check_typed<B>(c, input<B, std::uint8_t, a, b>(c.in[0]) & n);
      else return conf::skip_because(B::not_instantiated("uint8"));
    }
    if (op == "xor_number") {
      if constexpr (B::template instantiates<bool>()) return check_typed<B>(c, nax::bitwise_xor(input<B, bool, a, b>(c.in[0]), n != 0));
      else return conf::skip_because(B::not_instantiated("bool"));
    }
    if constexpr (B::template instantiates<std::int32_t>()) {
      const auto s = input<B, std::int32_t, a, b>(c.in[0]);
      if (op == "number_left_shift") return check_typed<B>(c, nax::left_shift(n, s));
      if (op == "number_right_shift") return check_typed<B>(c, n >> s);
      return "unknown op " + op;
    } else {
      return conf::skip_because(B::not_instantiated("int32"));
    }
  }
  return by_type<B, std::int8_t, std::uint8_t, std::int32_t, std::uint32_t, std::int64_t, bool>(
      c.dtype(), [&](auto t) { return same_type<B, decltype(t)>(c); });
}

}  // namespace conf_bitwise
