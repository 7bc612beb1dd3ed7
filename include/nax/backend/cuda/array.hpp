// Device arrays: nax::cuda::Array<T, axes...> (owning, row-major in declared order, on one
// device) and nax::cuda::ArrayView<T, axes...> (non-owning). In expressions a device array
// is a DeviceLeaf, so the memory space is part of every expression's type: an expression
// that reads host and device arrays does not compile (see require_one_memory_space).
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "../../core/array_shape.hpp"
#include "../../core/checks.hpp"
#include "../../core/element_type.hpp"
#include "../../core/shape.hpp"
#include "../../expr/node.hpp"
#include "buffer.hpp"

namespace nax::cuda {

template <class T, class... As>
class ArrayView;
template <class T, class... As>
class Array;

namespace detail {

// A device array inside an expression: a strided view of device memory, optionally keeping
// the storage alive (a temporary cuda::Array moved into an expression).
template <class T, class... As>
struct DeviceLeaf : nax::detail::node_interface<DeviceLeaf<T, As...>> {
  using value_type = T;
  using axes_type = axes<As...>;
  // Pointer, extents and strides; the pointer is device memory, never dereferenced on the host.
  nax::ArrayView<const T, As...> view;
  std::shared_ptr<const void> owner;
  int device = 0;
  std::uint64_t id = 0;  // contexts look for an id on every node they materialise
  const std::array<index_t, sizeof...(As)>& extents() const { return view.extents(); }
  // The positional lowering reads it like any strided leaf.
  nax::detail::Leaf<T, As...> as_leaf() const { return {{}, view, owner}; }
};

template <class X>
inline constexpr bool is_device_leaf_v = false;
template <class T, class... As>
inline constexpr bool is_device_leaf_v<DeviceLeaf<T, As...>> = true;

// The static check users see when an expression mixes memory spaces.
template <class Destination, bool HostOperand>
struct require_one_memory_space {
  static_assert(!HostOperand,
                "nax: mixing host and device operands in one expression: every array of an expression "
                "evaluated on the CUDA backend must be a nax::cuda::Array or nax::cuda::ArrayView; copy host "
                "arrays with nax::cuda::to_device(x) (and device arrays back with nax::cuda::to_host(d))");
  static constexpr bool value = true;
};
template <class Destination, bool DeviceOperand>
struct require_host_operands {
  static_assert(!DeviceOperand,
                "nax: mixing host and device operands in one expression: a nax::cuda::Array is read by an "
                "expression evaluated on the host; evaluate it into a nax::cuda::Array, or copy it with "
                "nax::cuda::to_host(d)");
  static constexpr bool value = true;
};

}  // namespace detail

// A non-owning view of device memory with named axes (pointer, extents, strides in elements).
template <class T, class... As>
class ArrayView {
  static_assert(nax::detail::require_axis_names<axes<As...>>::value);
  static_assert(nax::detail::require_unique_axes<axes<As...>>::value);

 public:
  using value_type = std::remove_const_t<T>;
  using axes_type = axes<As...>;
  using hidden_type = axes<>;
  using unbound_type = axes<>;
  static constexpr std::size_t rank = sizeof...(As);

  ArrayView() = default;
  ArrayView(T* data, const std::array<index_t, rank>& extents, int device)
      : view_(data, extents), device_(device) {}
  ArrayView(T* data, const std::array<index_t, rank>& extents, const std::array<index_t, rank>& strides, int device)
      : view_(data, extents, strides), device_(device) {}
  template <class U>
    requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
  ArrayView(const ArrayView<U, As...>& other)
      : view_(other.data(), other.extents(), other.strides()), device_(other.device()) {}

  T* data() const { return view_.data(); }
  const std::array<index_t, rank>& extents() const { return view_.extents(); }
  const std::array<index_t, rank>& strides() const { return view_.strides(); }
  index_t size() const { return view_.size(); }
  int device() const { return device_; }
  template <class A>
  index_t extent() const {
    return view_.template extent<A>();
  }
  // The same pointer, extents and strides in the host view type (for nax internals; the
  // pointer stays a device pointer).
  nax::ArrayView<const value_type, As...> host_typed() const { return {view_.data(), view_.extents(), view_.strides()}; }

  // Evaluates expr on the device into this view (extents must match by name).
  template <class E>
  const ArrayView& assign(const E& expr) const;

 private:
  nax::ArrayView<T, As...> view_;
  int device_ = 0;
};

// Found by ADL from nax::detail::as_expr: a device array or view becomes a DeviceLeaf.
template <class T, class... As>
detail::DeviceLeaf<std::remove_const_t<T>, As...> leaf_of(const ArrayView<T, As...>& v,
                                                          std::shared_ptr<const void> owner = {}) {
  return {{}, v.host_typed(), std::move(owner), v.device(), 0};
}

// An owning device array: row-major in the declared axis order, on the device that was
// current when it was made. Value semantics like nax::Array: copies copy the device data.
// Its names, extents and size are nax::Array's (core/array_shape.hpp); the storage is a
// device buffer.
template <class T, class... As>
class Array : public nax::detail::array_shape<As...> {
  static_assert(element<T>, "nax: the element type of a nax::cuda::Array must be bool, an integer or a floating type");
  using shape = nax::detail::array_shape<As...>;
  using shape::extents_;
  using shape::size_;

 public:
  using value_type = T;
  using typename shape::axes_type;
  using shape::rank;

  Array() : Array(std::array<index_t, rank>{}) {}
  // Zero-filled.
  explicit Array(const std::array<index_t, rank>& extents) : Array(uninitialized, extents) {
    if (size_ > 0)
      NAX_CUDA_CHECK(cudaMemsetAsync(storage_.data(), 0, static_cast<std::size_t>(size_) * sizeof(T),
                                     nax::cuda::stream(storage_.device())));
  }
  template <std::size_t M>
  explicit Array(const index_t (&extents)[M]) : Array(nax::detail::extents_from_list<axes_type>(extents)) {}

  // Evaluates a device expression whose axis names are these (in any order).
  template <class E>
    requires requires { typename std::remove_cvref_t<E>::axes_type; } &&
             (!std::is_same_v<std::remove_cvref_t<E>, Array>)
  Array(const E& expression);

  // A copy on the current device (allocated there); from an array on another GPU, a peer copy
  // ordered after the source's queued work and before its later free (copy_across_devices).
  Array(const Array& other) : Array(uninitialized, other.extents_) {
    if (size_ == 0) return;
    const std::size_t bytes = static_cast<std::size_t>(size_) * sizeof(T);
    if (other.device() == device())
      NAX_CUDA_CHECK(cudaMemcpyAsync(storage_.data(), other.data(), bytes, cudaMemcpyDeviceToDevice,
                                     nax::cuda::stream(device())));
    else
      detail::copy_across_devices(storage_.data(), device(), other.data(), other.device(), bytes);
  }
  Array(Array&& other) noexcept : shape(std::move(other)), storage_(std::move(other.storage_)) {}
  Array& operator=(Array&& other) noexcept {
    shape::operator=(std::move(other));
    storage_ = std::move(other.storage_);
    return *this;
  }
  Array& operator=(const Array& other) {
    if (this != &other) *this = Array(other);
    return *this;
  }
  template <class E>
    requires requires { typename std::remove_cvref_t<E>::axes_type; } &&
             (!std::is_same_v<std::remove_cvref_t<E>, Array>)
  Array& operator=(const E& expression);

  T* data() { return storage_.data(); }
  const T* data() const { return storage_.data(); }
  using shape::extent;
  using shape::extents;
  using shape::size;
  using shape::strides;
  int device() const { return storage_.device(); }

  ArrayView<T, As...> view() { return {data(), extents_, device()}; }
  ArrayView<const T, As...> view() const { return {data(), extents_, device()}; }

  // The value of a rank-0 array, copied back to the host (waits for the device's stream).
  T item() const {
    static_assert(nax::detail::require_rank_zero<axes_type>::value);
    if (size_ == 0) throw shape_error("nax: item() of an empty (moved-from) nax::cuda::Array");
    T value{};
    NAX_CUDA_CHECK(cudaMemcpyAsync(&value, data(), sizeof(T), cudaMemcpyDeviceToHost, nax::cuda::stream(device())));
    NAX_CUDA_CHECK(cudaStreamSynchronize(nax::cuda::stream(device())));
    return value;
  }

  struct uninitialized_t {};
  static constexpr uninitialized_t uninitialized{};
  // Storage on the current device, contents unspecified.
  Array(uninitialized_t, const std::array<index_t, rank>& extents)
      : shape(extents), storage_(static_cast<std::size_t>(size_), current_device()) {}

 private:
  detail::device_buffer<T> storage_;
};

}  // namespace nax::cuda

namespace nax::detail {
// Device arrays and views are operands of nax's builders (sum, dot, +, exp, ...): as_expr
// turns them into DeviceLeaf nodes through nax::cuda::detail::leaf_of (found by ADL).
template <class T, class... As>
struct is_array<nax::cuda::Array<T, As...>> : std::true_type {};
template <class T, class... As>
struct is_view<nax::cuda::ArrayView<T, As...>> : std::true_type {};

namespace host {
struct context;
}
}  // namespace nax::detail

namespace nax::cuda::detail {
// A device array read by an expression that the host evaluates: a compile-time error.
template <class T, class... As>
nax::detail::Leaf<T, As...> materialise_node(const DeviceLeaf<T, As...>& leaf, nax::detail::host::context&) {
  static_assert(require_host_operands<axes<As...>, true>::value);
  return leaf.as_leaf();
}
}  // namespace nax::cuda::detail
