// Extents and strides of named axes: overflow-checked sizes, row-major strides, and the
// run-time checks that throw shape_error with the axis names and numbers.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "axis_list.hpp"
#include "config.hpp"
#include "errors.hpp"

namespace nax {

template <std::size_t N>
using extents_t = std::array<index_t, N>;

namespace detail {

template <class Axes>
using extents_of = std::array<index_t, Axes::size>;

// "(batch=128, in=3)" for messages.
inline std::string describe_extents(const std::string_view* names, const index_t* extents, std::size_t n) {
  std::string out = "(";
  for (std::size_t i = 0; i != n; ++i) {
    if (i) out += ", ";
    out += names[i];
    out += '=';
    out += std::to_string(extents[i]);
  }
  return out + ")";
}
template <class... As>
std::string describe_extents(axes<As...>, const std::array<index_t, sizeof...(As)>& extents) {
  return describe_extents(axis_names_v<axes<As...>>.data(), extents.data(), sizeof...(As));
}

// Tag of the constructors that take extents checked already (by checked_size, when the array
// they belong to was made).
struct checked_extents_t {};
inline constexpr checked_extents_t checked_extents{};

// Checks every extent is >= 0 and the element count fits index_t; returns the count. The
// work is one plain function; the template only supplies the names.
inline index_t checked_size(const std::string_view* names, const index_t* extents, std::size_t n) {
  index_t total = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (extents[i] < 0)
      throw shape_error("nax: negative extent " + std::to_string(extents[i]) + " in " +
                        describe_extents(names, extents, n));
    if (__builtin_mul_overflow(total, extents[i], &total))  // (no division: this runs for every view)
      throw shape_error("nax: size overflow: the element count of " + describe_extents(names, extents, n) +
                        " does not fit in a 64-bit index");
  }
  return total;
}
template <class... As>
index_t checked_size(axes<As...>, const std::array<index_t, sizeof...(As)>& extents) {
  return checked_size(axis_names_v<axes<As...>>.data(), extents.data(), sizeof...(As));
}

template <class Axes, std::size_t Given>
struct require_extent_count {
  static_assert(Axes::size == Given,
                "nax: one extent per axis is needed (Axes), and a different number of extents was given");
  static constexpr bool value = true;
};

// Extents given as a braced list `{128, 3}` in the order of Axes. Taken as a C array whose
// length is deduced, so a list with the wrong count is a compile error naming the axes
// (a std::array parameter would pad it with zeros).
template <class Axes, std::size_t M>
std::array<index_t, Axes::size> extents_from_list(const index_t (&list)[M]) {
  static_assert(require_extent_count<Axes, M>::value);
  std::array<index_t, Axes::size> out{};
  for (std::size_t i = 0; i < M && i < Axes::size; ++i) out[i] = list[i];
  return out;
}

// Callers check the size with checked_size (which names the axes); until then extents may
// overflow, so the product must not: on overflow the strides stop growing (never used).
template <std::size_t N>
std::array<index_t, N> row_major_strides(const std::array<index_t, N>& extents) {
  std::array<index_t, N> strides{};
  index_t s = 1;
  for (std::size_t i = N; i-- > 0;) {
    strides[i] = s;
    index_t next = 0;
    if (!__builtin_mul_overflow(s, extents[i] ? extents[i] : 1, &next)) s = next;
  }
  return strides;
}

[[noreturn]] inline void throw_extent_mismatch(std::string_view axis, index_t a, const char* what_a, index_t b,
                                               const char* what_b) {
  throw shape_error("nax: extent mismatch on axis '" + std::string(axis) + "': " + std::to_string(a) + " in " +
                    what_a + ", " + std::to_string(b) + " in " + what_b);
}
template <class Axis>
void check_same_extent(index_t a, index_t b, const char* what_a, const char* what_b) {
  if (a != b) throw_extent_mismatch(axis_name<Axis>(), a, what_a, b, what_b);
}

[[noreturn]] inline void throw_index_out_of_range(index_t i, std::string_view axis, index_t extent) {
  throw shape_error("nax: index " + std::to_string(i) + " out of range for axis '" + std::string(axis) +
                    "' of extent " + std::to_string(extent));
}
template <class Axis>
void check_index(index_t i, index_t extent) {
  if (i < 0 || i >= extent) throw_index_out_of_range(i, axis_name<Axis>(), extent);
}

// Destination and expression extents of an assignment, in the destination's axis order.
inline void check_assignment_extents(const std::string_view* names, const index_t* destination,
                                     const index_t* expression, std::size_t n) {
  for (std::size_t k = 0; k != n; ++k)
    if (expression[k] != destination[k])
      throw shape_error("nax: extent mismatch in assignment on axis '" + std::string(names[k]) +
                        "': the destination has " + std::to_string(destination[k]) + ", the expression " +
                        std::to_string(expression[k]));
}

}  // namespace detail
}  // namespace nax
