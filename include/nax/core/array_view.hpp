// ArrayView: a non-owning view of named-axis data (pointer, extents, strides in elements).
// Core layer. Views never own; expressions hold views, Arrays own.
#pragma once
#include <array>
#include <cstddef>
#include <type_traits>

#include "axis_list.hpp"
#include "checks.hpp"
#include "evaluate_fwd.hpp"
#include "shape.hpp"

namespace nax {

template <class T, class... As>
class ArrayView {
  static_assert(detail::require_axis_names<axes<As...>>::value);
  static_assert(detail::require_unique_axes<axes<As...>>::value);

 public:
  using value_type = std::remove_const_t<T>;
  using axes_type = axes<As...>;
  using hidden_type = axes<>;
  using unbound_type = axes<>;
  static constexpr std::size_t rank = sizeof...(As);

  ArrayView() = default;
  // A contiguous row-major view in the declared axis order.
  template <std::size_t M>
  ArrayView(T* data, const index_t (&extents)[M]) : ArrayView(data, detail::extents_from_list<axes_type>(extents)) {}
  ArrayView(T* data, const std::array<index_t, rank>& extents)
      : data_(data), extents_(extents), strides_(detail::row_major_strides(extents)) {
    detail::checked_size(axes_type{}, extents_);
  }
  template <std::size_t M, std::size_t S>
  ArrayView(T* data, const index_t (&extents)[M], const index_t (&strides)[S])
      : ArrayView(data, detail::extents_from_list<axes_type>(extents), detail::extents_from_list<axes_type>(strides)) {}
  ArrayView(T* data, const std::array<index_t, rank>& extents, const std::array<index_t, rank>& strides)
      : data_(data), extents_(extents), strides_(strides) {
    detail::checked_size(axes_type{}, extents_);
  }
  // A view of an Array's own storage: extents checked when the array was made, strides its
  // row-major ones (Array::view(), which every expression over an array calls).
  ArrayView(detail::checked_extents_t, T* data, const std::array<index_t, rank>& extents,
            const std::array<index_t, rank>& strides)
      : data_(data), extents_(extents), strides_(strides) {}
  // A view of mutable data converts to a view of const data.
  template <class U>
    requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
  ArrayView(const ArrayView<U, As...>& other)
      : data_(other.data()), extents_(other.extents()), strides_(other.strides()) {}

  T* data() const { return data_; }
  const std::array<index_t, rank>& extents() const { return extents_; }
  const std::array<index_t, rank>& strides() const { return strides_; }
  index_t size() const {
    index_t n = 1;
    for (index_t e : extents_) n *= e;
    return n;
  }

  template <class A>
  index_t extent() const {
    static_assert(detail::require_axis_present<A, axes_type>::value);
    return extents_[detail::index_of_v<A, axes_type>];
  }
  template <class A>
  index_t stride() const {
    static_assert(detail::require_axis_present<A, axes_type>::value);
    return strides_[detail::index_of_v<A, axes_type>];
  }

  // Checked element access, indices in the declared axis order.
  template <class... Is>
    requires(sizeof...(Is) == rank && (std::is_integral_v<Is> && ...))
  T& operator()(Is... indices) const {
    std::array<index_t, rank> idx{static_cast<index_t>(indices)...};
    index_t offset = 0;
    std::size_t k = 0;
    ((detail::check_index<As>(idx[k], extents_[k]), offset += idx[k] * strides_[k], ++k), ...);
    return data_[offset];
  }

  value_type item() const {
    static_assert(detail::require_rank_zero<axes_type>::value);
    return *data_;
  }

  // Writes an expression into the viewed elements, by name; extents must match
  // (shape_error otherwise). `=` on a view rebinds it, as for pointers; assign() writes.
  template <class E>
    requires(!std::is_const_v<T> && requires { typename std::remove_cvref_t<E>::axes_type; })
  const ArrayView& assign(const E& expression) const {
    detail::evaluate_into(*this, expression);
    return *this;
  }

 private:
  T* data_ = nullptr;
  std::array<index_t, rank> extents_{};
  std::array<index_t, rank> strides_{};
};

}  // namespace nax
