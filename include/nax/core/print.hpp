// operator<< for arrays and views: the element type's axes with their extents, then the
// values nested by axis, e.g. "(batch=2, in=3)\n[[1, 2, 3],\n [4, 5, 6]]".
#pragma once
#include <ostream>
#include <string>
#include <type_traits>

#include "array.hpp"

namespace nax {
namespace detail {
template <class T, class... As>
void print_values(std::ostream& os, const ArrayView<T, As...>& v, std::size_t axis, index_t offset) {
  constexpr std::size_t R = sizeof...(As);
  if (axis == R) {
    using V = std::remove_const_t<T>;
    if constexpr (std::is_same_v<V, bool>) os << (v.data()[offset] ? "true" : "false");
    else if constexpr (sizeof(V) == 1) os << static_cast<int>(v.data()[offset]);
    else os << v.data()[offset];
    return;
  }
  os << '[';
  for (index_t i = 0; i < v.extents()[axis]; ++i) {
    if (i) {
      os << ',';
      if (axis + 1 < R) os << '\n' << std::string(axis + 1, ' ');
      else os << ' ';
    }
    print_values(os, v, axis + 1, offset + i * v.strides()[axis]);
  }
  os << ']';
}
}  // namespace detail

// "(batch=128, in=3)": the axes and extents of an array or view.
template <class T, class... As>
std::string describe(const ArrayView<T, As...>& v) {
  return detail::describe_extents(axes<As...>{}, v.extents());
}
template <class T, class... As>
std::string describe(const Array<T, As...>& a) {
  return describe(a.view());
}

template <class T, class... As>
std::ostream& operator<<(std::ostream& os, const ArrayView<T, As...>& v) {
  os << detail::describe_extents(axes<As...>{}, v.extents()) << '\n';
  detail::print_values(os, v, 0, 0);
  return os;
}
template <class T, class... As>
std::ostream& operator<<(std::ostream& os, const Array<T, As...>& a) {
  return os << a.view();
}
}  // namespace nax
