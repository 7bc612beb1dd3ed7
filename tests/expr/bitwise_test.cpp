// expr/bitwise.hpp against references written here from the definitions (bit by bit, shifts as
// repeated doubling and floor halving in 64-bit arithmetic): bitwise_and/or/xor/not, invert,
// left_shift, right_shift and the operators & | ^ ~ << >> on int8, uint8, int32, uint32, int64
// and bool, random extents (0 and 1 included) and axis orders, broadcasting by name, shift
// amounts negative and at or past the bit width (JAX's results: 0, or the sign fill), mixed
// types and C++ numbers, inside vmap, and integers on a side path of grad and jvp.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(m);
using nax::index_t;
using nax_test::at;
using nax_test::index_map;

template <class T>
constexpr int bits_of() {
  return int(sizeof(T) * 8);
}

// A value of R from the low bits of u (two's complement), as a 64-bit signed number.
template <class R>
std::int64_t wrap_to(std::uint64_t u) {
  if constexpr (std::is_same_v<R, bool>) return std::int64_t(u & 1);
  else return std::int64_t(static_cast<R>(u));
}

// and, or, xor one bit at a time over the 64-bit two's complement forms.
template <class R, class BitOp>
std::int64_t ref_bits(std::int64_t x, std::int64_t y, BitOp op) {
  std::uint64_t r = 0;
  for (int k = 0; k < 64; ++k) {
    const bool bx = (std::uint64_t(x) >> k) & 1u, by = (std::uint64_t(y) >> k) & 1u;
    if (op(bx, by)) r |= std::uint64_t(1) << k;
  }
  return wrap_to<R>(r);
}
template <class R>
std::int64_t ref_and(std::int64_t x, std::int64_t y) {
  return ref_bits<R>(x, y, [](bool p, bool q) { return p && q; });
}
template <class R>
std::int64_t ref_or(std::int64_t x, std::int64_t y) {
  return ref_bits<R>(x, y, [](bool p, bool q) { return p || q; });
}
template <class R>
std::int64_t ref_xor(std::int64_t x, std::int64_t y) {
  return ref_bits<R>(x, y, [](bool p, bool q) { return p != q; });
}
template <class R>
std::int64_t ref_not(std::int64_t x) {
  if constexpr (std::is_same_v<R, bool>) return x ? 0 : 1;
  else if constexpr (std::is_signed_v<R>) return -x - 1;
  else return std::int64_t(std::numeric_limits<R>::max()) - x;
}
// x * 2^s modulo 2^bits; 0 when s < 0 or s >= bits (XLA's shift_left).
template <class R>
std::int64_t ref_left_shift(std::int64_t x, std::int64_t s) {
  if (s < 0 || s >= bits_of<R>()) return 0;
  std::uint64_t u = std::uint64_t(x);
  for (std::int64_t k = 0; k < s; ++k) u *= 2u;
  return wrap_to<R>(u);
}
// floor(x / 2^s); out of range: the sign fill for signed R (XLA's shift_right_arithmetic), 0
// for unsigned R (shift_right_logical).
template <class R>
std::int64_t ref_right_shift(std::int64_t x, std::int64_t s) {
  if (s < 0 || s >= bits_of<R>()) return std::is_signed_v<R> && x < 0 ? -1 : 0;
  for (std::int64_t k = 0; k < s; ++k) x = x / 2 - (x < 0 && x % 2 != 0 ? 1 : 0);
  return x;
}

template <class T>
T lowest() {
  return std::is_same_v<T, bool> ? T(false) : std::numeric_limits<T>::lowest();
}
template <class T>
T highest() {
  return std::is_same_v<T, bool> ? T(true) : std::numeric_limits<T>::max();
}

// Full-range values; shift amounts in [-3, bits + 3] (unsigned: [0, bits + 3]) and now and then
// the type's extremes.
template <class T, class... As>
nax::Array<T, As...> values(nax_test::random_source& rng, const index_map& sizes) {
  return nax_test::random_array_of<T, nax::axes<As...>>(rng, sizes, lowest<T>(), highest<T>());
}
template <class T, class... As>
nax::Array<T, As...> amounts(nax_test::random_source& rng, const index_map& sizes) {
  nax::Array<T, As...> s(nax_test::extents_in<nax::axes<As...>>(sizes));
  for (auto& v : s) {
    if (rng.chance(0.1)) v = rng.chance(0.5) ? lowest<T>() : highest<T>();
    else v = static_cast<T>(rng.integer(std::is_signed_v<T> ? -3 : 0, bits_of<T>() + 3));
  }
  return s;
}

template <class E>
using value_of = typename std::remove_cvref_t<E>::value_type;

// op(a, b) into a (j, i) array of the expected type R, against ref<R> at every index.
template <class R, class A, class B, class Op, class Ref>
void check_pair(const A& a, const B& b, const index_map& sizes, Op op, Ref ref) {
  static_assert(std::is_same_v<value_of<decltype(op(a, b))>, R>);
  nax::Array<R, j, i> out = op(a, b);
  nax_test::check_sizes(out, sizes);
  nax_test::check_all(out, [&](const index_map& idx) {
    return static_cast<R>(ref(std::int64_t(at(a, idx)), std::int64_t(at(b, idx))));
  });
}

// One binary op on operands of X and Y (result R), in three layouts: the same axes in other
// orders, b broadcast along i, and an outer combination of a(i) and b(j).
template <class R, class X, class Y, class Op, class Ref>
void check_binary(const char* what, Op op, Ref ref, bool shift) {
  CAPTURE(what);
  nax_test::random_source rng(std::hash<std::string>{}(what));
  for (int trial = 0; trial < 8; ++trial) {
    const auto sizes = rng.sizes({"i", "j"}, 6);
    CAPTURE(nax_test::describe(sizes));
    auto second = [&](auto... axes_tag) {
      return shift ? amounts<Y, decltype(axes_tag)...>(rng, sizes) : values<Y, decltype(axes_tag)...>(rng, sizes);
    };
    check_pair<R>(values<X, i, j>(rng, sizes), second(j{}, i{}), sizes, op, ref);
    check_pair<R>(values<X, i, j>(rng, sizes), second(j{}), sizes, op, ref);
    check_pair<R>(values<X, i>(rng, sizes), second(j{}), sizes, op, ref);
  }
}

template <class T>
void check_same_type_ops() {
  check_binary<T, T, T>("bitwise_and", [](const auto& a, const auto& b) { return nax::bitwise_and(a, b); },
                        ref_and<T>, false);
  check_binary<T, T, T>("operator&", [](const auto& a, const auto& b) { return a & b; }, ref_and<T>, false);
  check_binary<T, T, T>("bitwise_or", [](const auto& a, const auto& b) { return nax::bitwise_or(a, b); },
                        ref_or<T>, false);
  check_binary<T, T, T>("operator|", [](const auto& a, const auto& b) { return a | b; }, ref_or<T>, false);
  check_binary<T, T, T>("bitwise_xor", [](const auto& a, const auto& b) { return nax::bitwise_xor(a, b); },
                        ref_xor<T>, false);
  check_binary<T, T, T>("operator^", [](const auto& a, const auto& b) { return a ^ b; }, ref_xor<T>, false);
  nax_test::random_source rng(31 + sizeof(T));
  for (int trial = 0; trial < 8; ++trial) {
    const auto sizes = rng.sizes({"i", "j"}, 6);
    const auto x = values<T, i, j>(rng, sizes);
    auto expected = [&](const index_map& idx) { return static_cast<T>(ref_not<T>(std::int64_t(at(x, idx)))); };
    static_assert(std::is_same_v<value_of<decltype(nax::bitwise_not(x))>, T>);
    nax::Array<T, j, i> a = nax::bitwise_not(x);
    nax::Array<T, j, i> b = nax::invert(x);
    nax::Array<T, i, j> c = ~x;
    nax::Array<T, i, j> d = ~~x;  // the identity
    nax_test::check_all(a, expected);
    nax_test::check_all(b, expected);
    nax_test::check_all(c, expected);
    nax_test::check_all(d, [&](const index_map& idx) { return at(x, idx); });
  }
}

template <class T>
void check_shifts() {
  check_binary<T, T, T>("left_shift", [](const auto& a, const auto& b) { return nax::left_shift(a, b); },
                        ref_left_shift<T>, true);
  check_binary<T, T, T>("operator<<", [](const auto& a, const auto& b) { return a << b; }, ref_left_shift<T>, true);
  check_binary<T, T, T>("right_shift", [](const auto& a, const auto& b) { return nax::right_shift(a, b); },
                        ref_right_shift<T>, true);
  check_binary<T, T, T>("operator>>", [](const auto& a, const auto& b) { return a >> b; }, ref_right_shift<T>, true);
}
}  // namespace

TEST_CASE("bitwise_and, bitwise_or, bitwise_xor, bitwise_not, invert and & | ^ ~ against bitwise loops") {
  check_same_type_ops<std::int8_t>();
  check_same_type_ops<std::uint8_t>();
  check_same_type_ops<std::int32_t>();
  check_same_type_ops<std::uint32_t>();
  check_same_type_ops<std::int64_t>();
  check_same_type_ops<bool>();  // logical and, or, xor, not (as jnp on bools)
}

TEST_CASE("left_shift, right_shift, << and >>: amounts negative and past the bit width as XLA") {
  check_shifts<std::int8_t>();
  check_shifts<std::uint8_t>();
  check_shifts<std::int32_t>();
  check_shifts<std::uint32_t>();
  check_shifts<std::int64_t>();
}

TEST_CASE("shifts: JAX's values at the edges (jnp.left_shift and jnp.right_shift, jax 0.10.2)") {
  // int8 [-5, 3] shifted by [-1, 0, 1, 7, 8, 9, 100, -100], as printed by JAX.
  nax::Array<std::int8_t, i> x({2});
  x(0) = -5, x(1) = 3;
  nax::Array<std::int8_t, j> s({8});
  const std::int8_t amount[] = {-1, 0, 1, 7, 8, 9, 100, -100};
  for (index_t n = 0; n < 8; ++n) s(n) = amount[n];
  nax::Array<std::int8_t, i, j> left = x << s;
  nax::Array<std::int8_t, i, j> right = x >> s;
  const int jax_left[2][8] = {{0, -5, -10, -128, 0, 0, 0, 0}, {0, 3, 6, -128, 0, 0, 0, 0}};
  const int jax_right[2][8] = {{-1, -5, -3, -1, -1, -1, -1, -1}, {0, 3, 1, 0, 0, 0, 0, 0}};
  for (index_t a = 0; a < 2; ++a)
    for (index_t b = 0; b < 8; ++b) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(int(left(a, b)) == jax_left[a][b]);
      CHECK(int(right(a, b)) == jax_right[a][b]);
    }
  // uint32: logical right shift, 0 past the width
  nax::Array<std::uint32_t, i> u({1});
  u(0) = 0xffffffffu;
  nax::Array<std::uint32_t, j> us({4});
  us(0) = 1, us(1) = 31, us(2) = 32, us(3) = 1000;
  nax::Array<std::uint32_t, i, j> ur = u >> us;
  nax::Array<std::uint32_t, i, j> ul = u << us;
  CHECK(ur(0, 0) == 0x7fffffffu);
  CHECK(ur(0, 1) == 1u);
  CHECK(ur(0, 2) == 0u);
  CHECK(ur(0, 3) == 0u);
  CHECK(ul(0, 0) == 0xfffffffeu);
  CHECK(ul(0, 1) == 0x80000000u);
  CHECK(ul(0, 2) == 0u);
  CHECK(ul(0, 3) == 0u);
}

TEST_CASE("mixed element types promote as the other binary ops (jnp's result types)") {
  // int8 with uint8 -> int16: a negative amount stays negative (0 / sign fill), 250 stays 250
  check_binary<std::int16_t, std::int8_t, std::uint8_t>(
      "int8 & uint8", [](const auto& a, const auto& b) { return a & b; }, ref_and<std::int16_t>, false);
  check_binary<std::int16_t, std::uint8_t, std::int8_t>(
      "uint8 << int8", [](const auto& a, const auto& b) { return nax::left_shift(a, b); },
      ref_left_shift<std::int16_t>, true);
  check_binary<std::int16_t, std::int8_t, std::uint8_t>(
      "int8 >> uint8", [](const auto& a, const auto& b) { return nax::right_shift(a, b); },
      ref_right_shift<std::int16_t>, true);
  check_binary<std::int64_t, std::int32_t, std::uint32_t>(
      "int32 ^ uint32", [](const auto& a, const auto& b) { return nax::bitwise_xor(a, b); }, ref_xor<std::int64_t>,
      false);
  check_binary<std::int32_t, std::int8_t, std::int32_t>(
      "int8 << int32", [](const auto& a, const auto& b) { return a << b; }, ref_left_shift<std::int32_t>, true);
  check_binary<std::int8_t, bool, std::int8_t>(
      "bool | int8", [](const auto& a, const auto& b) { return nax::bitwise_or(a, b); }, ref_or<std::int8_t>, false);
  check_binary<std::int8_t, std::int8_t, bool>(
      "int8 << bool", [](const auto& a, const auto& b) { return a << b; }, ref_left_shift<std::int8_t>, false);
  // two bools shift in int32, as jnp.left_shift(bool, bool)
  check_binary<std::int32_t, bool, bool>(
      "bool << bool", [](const auto& a, const auto& b) { return nax::left_shift(a, b); },
      ref_left_shift<std::int32_t>, false);
  check_binary<std::int32_t, bool, bool>(
      "bool >> bool", [](const auto& a, const auto& b) { return a >> b; }, ref_right_shift<std::int32_t>, false);
}

TEST_CASE("C++ numbers adopt the array's type; one that does not fit it is an error") {
  nax_test::random_source rng(1701);
  for (int trial = 0; trial < 8; ++trial) {
    const auto sizes = rng.sizes({"i", "j"}, 6);
    const auto x = values<std::uint8_t, i, j>(rng, sizes);
    const auto s = amounts<std::int32_t, j, i>(rng, sizes);
    nax::Array<std::uint8_t, j, i> low = x & 15;
    nax_test::check_all(low, [&](const index_map& idx) { return std::uint8_t(ref_and<std::uint8_t>(at(x, idx), 15)); });
    nax::Array<std::uint8_t, j, i> high = 0xf0 | x;
    nax_test::check_all(high, [&](const index_map& idx) { return std::uint8_t(ref_or<std::uint8_t>(at(x, idx), 0xf0)); });
    nax::Array<std::uint8_t, j, i> past = x >> 9;  // 9 fits uint8 and is past its width: 0
    nax_test::check_all(past, [](const index_map&) { return std::uint8_t(0); });
    nax::Array<std::int32_t, j, i> powers = 1 << s;
    nax_test::check_all(powers, [&](const index_map& idx) { return std::int32_t(ref_left_shift<std::int32_t>(1, at(s, idx))); });
    nax::Array<std::int32_t, j, i> halves = nax::right_shift(-1000, s);
    nax_test::check_all(halves, [&](const index_map& idx) { return std::int32_t(ref_right_shift<std::int32_t>(-1000, at(s, idx))); });
    nax::Array<bool, j, i> flags = nax::bitwise_xor(x > 100, true);
    nax_test::check_all(flags, [&](const index_map& idx) { return !(at(x, idx) > 100); });
    CHECK_THROWS_AS((void)(x & 256), nax::argument_error);
    CHECK_THROWS_AS((void)nax::left_shift(x, -1), nax::argument_error);
  }
}

TEST_CASE("broadcasting by name: unequal extents of one name are a shape_error") {
  nax::Array<std::int32_t, i, j> a({3, 4});
  nax::Array<std::int32_t, j> b({5});
  CHECK(nax_test::check_shape_error([&] { (void)(a & b); }, {"'j'", "4", "5"}));
  CHECK(nax_test::check_shape_error([&] { (void)nax::left_shift(b, a); }, {"'j'", "5", "4"}));
}

TEST_CASE("printing arrays still works next to the operator<< of expressions") {
  nax::Array<std::int32_t, i> a({3});
  for (index_t n = 0; n < 3; ++n) a(n) = std::int32_t(n + 1);
  nax::Array<std::int32_t, i> shifted = a << 2;
  std::ostringstream out;
  out << shifted << " " << (1 << 3);
  CHECK(out.str() == "(i=3)\n[4, 8, 12] 8");
}

TEST_CASE("inside vmap: a shift amount per member, broadcast against the member's row") {
  nax_test::random_source rng(1702);
  for (int trial = 0; trial < 10; ++trial) {
    const auto sizes = rng.sizes({"m", "i"}, 6);
    const auto xs = values<std::int32_t, m, i>(rng, sizes);
    const auto s = amounts<std::int32_t, m>(rng, sizes);
    nax::Array<std::int32_t, i, m> out = nax::vmap<m>([](const auto& row, const auto& k) {
      return nax::right_shift(row, k) ^ ~(row << 1);
    })(xs, s);
    nax_test::check_sizes(out, sizes);
    nax_test::check_all(out, [&](const index_map& idx) {
      const std::int64_t x = at(xs, idx), k = at(s, idx);
      return std::int32_t(ref_xor<std::int32_t>(ref_right_shift<std::int32_t>(x, k),
                                                ref_not<std::int32_t>(ref_left_shift<std::int32_t>(x, 1))));
    });
  }
}

TEST_CASE("autodiff: integers on a side path carry no derivative (grad and jvp)") {
  nax_test::random_source rng(1703);
  for (int trial = 0; trial < 6; ++trial) {
    const auto sizes = rng.sizes({"i"}, 7);
    const auto k = values<std::int32_t, i>(rng, sizes);
    const auto x = nax_test::random_array_of<double, nax::axes<i>>(rng, sizes, -4.0, 4.0);
    // flips the sign where k is odd and scales by k >> 3; the integer path has no derivative
    auto f = [&](const auto& v) {
      return nax::sum(nax::where(nax::bitwise_and(k, 1) == 0, v, -v) * nax::cast<double>(k >> 3));
    };
    auto g = nax::grad(f)(x);
    auto slope = [&](const index_map& idx) {
      const std::int64_t kv = at(k, idx);
      return (ref_and<std::int32_t>(kv, 1) == 0 ? 1.0 : -1.0) * double(ref_right_shift<std::int32_t>(kv, 3));
    };
    nax_test::check_all(g, slope);
    const auto t = nax_test::random_array_of<double, nax::axes<i>>(rng, sizes, -1.0, 1.0);
    auto [value, tangent] = nax::jvp(f, nax::tuple(x), nax::tuple(t));
    double want_value = 0, want_tangent = 0;
    nax_test::for_each_index(x, [&](const index_map& idx) {
      want_value += slope(idx) * at(x, idx);
      want_tangent += slope(idx) * at(t, idx);
    });
    CHECK(value.item() == doctest::Approx(want_value));
    CHECK(tangent.item() == doctest::Approx(want_tangent));
    // an integer computed from the argument itself: parity of floor(v) picks the branch
    auto h = [](const auto& v) {
      auto odd = nax::bitwise_and(nax::cast<std::int32_t>(nax::floor(v)), 1) != 0;
      return nax::sum(nax::where(odd, -v, v) + nax::cast<double>(nax::left_shift(nax::cast<std::int32_t>(v), 2)));
    };
    auto gh = nax::grad(h)(x);
    nax_test::check_all(gh, [&](const index_map& idx) {
      const auto fl = std::int64_t(std::floor(at(x, idx)));
      return ref_and<std::int64_t>(fl, 1) != 0 ? -1.0 : 1.0;
    });
    auto [hv, ht] = nax::jvp(h, nax::tuple(x), nax::tuple(t));
    double want_h = 0, want_ht = 0;
    nax_test::for_each_index(x, [&](const index_map& idx) {
      const double v = at(x, idx);
      const double sign = ref_and<std::int64_t>(std::int64_t(std::floor(v)), 1) != 0 ? -1.0 : 1.0;
      want_h += sign * v + double(ref_left_shift<std::int32_t>(std::int64_t(v), 2));
      want_ht += sign * at(t, idx);
    });
    CHECK(hv.item() == doctest::Approx(want_h));
    CHECK(ht.item() == doctest::Approx(want_ht));
  }
}
