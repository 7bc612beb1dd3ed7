// The elementwise value checks shared by tests/expr/: op(a) and op(a, b) on random extents
// (0 and 1 included), with NaN, infinities and signed zeros sprinkled in for floating types,
// written into an array of the other axis order, against a reference computed in double.
#pragma once
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);

using nax::index_t;
using nax_test::at;
using nax_test::index_map;
using IJ = nax::axes<i, j>;
using JI = nax::axes<j, i>;

constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_d = std::numeric_limits<double>::infinity();

template <class E>
using value_of = typename std::remove_cvref_t<E>::value_type;

// Replaces about one element in six with NaN, +-inf or +-0 (floating types only).
template <class T, class... As>
void sprinkle_specials(nax::Array<T, As...>& a, nax_test::random_source& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity(), T(0), -T(0)};
    for (auto& x : a)
      if (rng.integer(0, 5) == 0) x = specials[rng.integer(0, 4)];
  }
}

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : (std::is_floating_point_v<T> ? 1e-12 : 0.0);
}

// op(a) for a(i, j) of T in [lo, hi], written into an (j, i) array and evaluated in (i, j)
// order, against ref(double-or-integer value of a).
template <class T, class Op, class Ref>
void check_unary(const char* what, Op op, Ref ref, T lo, T hi, bool specials = true) {
  CAPTURE(what);
  nax_test::random_source rng(std::hash<std::string>{}(what));
  for (int trial = 0; trial < 6; ++trial) {
    auto sizes = rng.sizes({"i", "j"}, 6);
    auto a = nax_test::random_array_of<T, IJ>(rng, sizes, lo, hi);
    if (specials) sprinkle_specials(a, rng);
    using R = value_of<decltype(op(a))>;
    const double rel = tolerance<R>();
    auto expected = [&](const index_map& idx) { return ref(at(a, idx)); };
    nax::Array<R, j, i> transposed = op(a);  // the destination's order differs from a's
    nax_test::check_sizes(transposed, sizes);
    nax_test::check_all(transposed, expected, rel, rel);
  }
}

// op(a, b) for a(i, j) of A and b(j, i) of B (matched by name), against ref.
template <class A, class B, class Op, class Ref>
void check_binary(const char* what, Op op, Ref ref, A a_lo, A a_hi, B b_lo, B b_hi, bool specials = true) {
  CAPTURE(what);
  nax_test::random_source rng(std::hash<std::string>{}(what));
  for (int trial = 0; trial < 6; ++trial) {
    auto sizes = rng.sizes({"i", "j"}, 6);
    auto a = nax_test::random_array_of<A, IJ>(rng, sizes, a_lo, a_hi);
    auto b = nax_test::random_array_of<B, JI>(rng, sizes, b_lo, b_hi);
    if (specials) {
      sprinkle_specials(a, rng);
      sprinkle_specials(b, rng);
    }
    using R = value_of<decltype(op(a, b))>;
    const double rel = tolerance<R>();
    nax::Array<R, j, i> out = op(a, b);
    nax_test::check_sizes(out, sizes);
    nax_test::check_all(out, [&](const index_map& idx) { return ref(at(a, idx), at(b, idx)); }, rel, rel);
  }
}
}  // namespace
