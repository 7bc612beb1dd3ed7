// Slices of a strided view by axis name, without copying: the part [begin, begin + count)
// along an axis (narrow), and the part at one index without that axis (drop_axis). The mesh
// (shards, collectives), xmap (each device's part) and both backends (joins) cut views so.
#pragma once
#include <array>

#include "array_view.hpp"
#include "axis_list.hpp"

namespace nax::detail {

// Elements [begin, begin + count) along Axis.
template <class Axis, class T, class... As>
ArrayView<T, As...> narrow(const ArrayView<T, As...>& view, index_t begin, index_t count) {
  constexpr std::size_t j = index_of_v<Axis, axes<As...>>;
  auto extents = view.extents();
  extents[j] = count;
  return {view.data() + begin * view.strides()[j], extents, view.strides()};
}

// The part of `view` at index `at` along Axis, without that axis.
template <class Axis, class T, class... As>
auto drop_axis(const ArrayView<T, As...>& view, index_t at) {
  using Rest = difference_t<axes<As...>, axes<Axis>>;
  constexpr std::size_t j = index_of_v<Axis, axes<As...>>;
  return [&]<class... Rs>(axes<Rs...>) {
    const std::array<index_t, sizeof...(Rs)> extents{view.extents()[index_of_v<Rs, axes<As...>>]...};
    const std::array<index_t, sizeof...(Rs)> strides{view.strides()[index_of_v<Rs, axes<As...>>]...};
    return ArrayView<T, Rs...>(view.data() + at * view.strides()[j], extents, strides);
  }(Rest{});
}

}  // namespace nax::detail
