// What nax::Array and nax::cuda::Array share: the axis names (checked once, here), the
// extents of a row-major array in declared order, and the element count they give. Each
// array adds its storage (host memory, device memory) and the operations on it.
#pragma once
#include <array>
#include <cstddef>
#include <utility>

#include "axis_list.hpp"
#include "checks.hpp"
#include "shape.hpp"

namespace nax::detail {

template <class... As>
class array_shape {
  static_assert(require_axis_names<axes<As...>>::value);
  static_assert(require_unique_axes<axes<As...>>::value);

 public:
  using axes_type = axes<As...>;
  using hidden_type = axes<>;
  using unbound_type = axes<>;
  static constexpr std::size_t rank = sizeof...(As);

  index_t size() const { return size_; }
  const std::array<index_t, rank>& extents() const { return extents_; }
  std::array<index_t, rank> strides() const { return row_major_strides(extents_); }
  template <class A>
  index_t extent() const {
    static_assert(require_axis_present<A, axes_type>::value);
    return extents_[index_of_v<A, axes_type>];
  }

 protected:
  array_shape() = default;
  // The size is checked: an overflow of index_t raises shape_error naming the extents.
  explicit array_shape(const std::array<index_t, rank>& extents)
      : extents_(extents), size_(checked_size(axes_type{}, extents)) {}
  array_shape(const array_shape&) = default;
  array_shape& operator=(const array_shape&) = default;
  // A moved-from array is empty (extents 0), as before.
  array_shape(array_shape&& other) noexcept
      : extents_(std::exchange(other.extents_, {})), size_(std::exchange(other.size_, 0)) {}
  array_shape& operator=(array_shape&& other) noexcept {
    extents_ = std::exchange(other.extents_, {});
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  ~array_shape() = default;

  std::array<index_t, rank> extents_{};
  index_t size_ = 0;
};

}  // namespace nax::detail
