// Extents and strides of named axes: overflow-checked sizes, row-major strides, and the
// run-time checks that throw shape_error with the axis names and numbers.
#pragma once
#include <array>
#include <cstddef>
#include <limits>
#include <string>
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

template <class... As>
std::string describe_extents(axes<As...>, const std::array<index_t, sizeof...(As)>& extents) {
  std::string out;
  std::size_t i = 0;
  ((out += (i ? ", " : ""), out += axis_name<As>(), out += '=', out += std::to_string(extents[i]), ++i), ...);
  return "(" + out + ")";
}

// Checks every extent is >= 0 and the element count fits index_t; returns the count.
template <class... As>
index_t checked_size(axes<As...> list, const std::array<index_t, sizeof...(As)>& extents) {
  index_t total = 1;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (extents[i] < 0)
      throw shape_error("nax: negative extent " + std::to_string(extents[i]) + " in " +
                        describe_extents(list, extents));
    if (extents[i] != 0 && total > std::numeric_limits<index_t>::max() / extents[i])
      throw shape_error("nax: size overflow: the element count of " + describe_extents(list, extents) +
                        " does not fit in a 64-bit index");
    total *= extents[i];
  }
  return total;
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

template <class Axis>
void check_same_extent(index_t a, index_t b, const char* what_a, const char* what_b) {
  if (a != b)
    throw shape_error("nax: extent mismatch on axis '" + std::string(axis_name<Axis>()) + "': " +
                      std::to_string(a) + " in " + what_a + ", " + std::to_string(b) + " in " + what_b);
}

template <class Axis>
void check_index(index_t i, index_t extent) {
  if (i < 0 || i >= extent)
    throw shape_error("nax: index " + std::to_string(i) + " out of range for axis '" +
                      std::string(axis_name<Axis>()) + "' of extent " + std::to_string(extent));
}

}  // namespace detail
}  // namespace nax
