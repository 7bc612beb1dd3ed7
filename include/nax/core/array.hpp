// Array: owning host storage of named-axis data, 64-byte aligned, row-major in the declared
// axis order. Core layer; evaluation of expressions is declared in evaluate_fwd.hpp.
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "array_shape.hpp"
#include "array_view.hpp"
#include "buffer_cache.hpp"
#include "element_type.hpp"
#include "tape_hooks.hpp"

namespace nax {

namespace detail {
// Frees an Array's buffer (of `bytes`) through the buffer cache (core/buffer_cache.hpp).
struct aligned_free {
  std::size_t bytes = 0;
  void operator()(void* p) const { free_buffer(p, bytes); }
};
template <class T>
std::unique_ptr<T[], aligned_free> allocate_aligned(index_t n) {
  if (n == 0) return {nullptr, aligned_free{0}};
  if (static_cast<std::size_t>(n) > std::size_t(-1) / sizeof(T))
    throw shape_error("nax: size overflow: " + std::to_string(n) + " elements do not fit in memory");
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  return {static_cast<T*>(allocate_buffer(bytes)), aligned_free{bytes}};
}

// Tag of Array's constructor that leaves the elements unset, for the library's temporaries
// that are written whole before they are read.
struct no_fill_t {};
inline constexpr no_fill_t no_fill{};

// The extents of expression e, in the order of the axis list L (names must match).
template <class L, class E>
std::array<index_t, L::size> extents_by_name(const E& e) {
  using EA = typename E::axes_type;
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<index_t, L::size>{e.extents()[index_of_v<at_t<I, L>, EA>]...};
  }(std::make_index_sequence<L::size>{});
}
}  // namespace detail

template <class T, class... As>
class Array : public detail::array_shape<As...> {
  static_assert(element<T>, "nax: Array element types are arithmetic types (bool, integers, floating point)");
  using shape = detail::array_shape<As...>;
  using shape::extents_;
  using shape::size_;

 public:
  using value_type = T;
  using typename shape::axes_type;
  using shape::rank;

  // Rank 0: one element, 0. Otherwise every extent is 0.
  Array() : Array(std::array<index_t, rank>{}) {}

  // Zero-filled, extents in the declared axis order.
  explicit Array(const std::array<index_t, rank>& extents) : Array(uninitialized, extents) {
    std::fill_n(data_.get(), size_, T{});
  }
  // Elements unset (the library's temporaries, written whole before they are read).
  Array(detail::no_fill_t, const std::array<index_t, rank>& extents) : Array(uninitialized, extents) {}
  template <std::size_t M>
  explicit Array(const index_t (&extents)[M]) : Array(detail::extents_from_list<axes_type>(extents)) {}
  template <std::size_t M>
  Array(const index_t (&extents)[M], std::initializer_list<T> values)
      : Array(detail::extents_from_list<axes_type>(extents), std::vector<T>(values)) {}
  template <std::size_t M>
  Array(const index_t (&extents)[M], const std::vector<T>& values)
      : Array(detail::extents_from_list<axes_type>(extents), values) {}
  Array(const std::array<index_t, rank>& extents, const std::vector<T>& values)
      : Array(uninitialized, extents) {
    if (static_cast<index_t>(values.size()) != size_)
      throw shape_error("nax: " + std::to_string(values.size()) + " values given for an array " +
                        detail::describe_extents(axes_type{}, extents_) + " of " + std::to_string(size_) +
                        " elements");
    std::copy(values.begin(), values.end(), data_.get());
  }

  // Evaluates an expression whose axis names are these (in any order).
  template <class E>
    requires requires { typename std::remove_cvref_t<E>::axes_type; } &&
             (!std::is_same_v<std::remove_cvref_t<E>, Array>)
  Array(const E& expression)
      : Array(uninitialized, [&] {
          static_assert(detail::require_bound<typename E::unbound_type>::value);
          static_assert(detail::require_not_mapped<typename E::hidden_type>::value);
          static_assert(detail::require_same_axis_set<
                        axes_type, detail::difference_t<typename E::axes_type, typename E::hidden_type>>::value);
          return detail::extents_by_name<axes_type>(expression);
        }()) {
    detail::evaluate_into(view(), expression);
  }

  // Inside grad a copy is an evaluation (recorded when other depends on a differentiated argument).
  Array(const Array& other) : Array(uninitialized, other.extents_) {
    if (detail::active_tape) [[unlikely]] detail::copy_in_grad(view(), std::as_const(other).view());
    else std::copy_n(other.data_.get(), size_, data_.get());
  }
  // A moved-from array is empty: every extent 0, no storage (rank 0: item() throws).
  Array(Array&& other) noexcept : shape(std::move(other)), data_(std::move(other.data_)) {}
  Array& operator=(Array&& other) noexcept {
    if (this == &other) return *this;
    release_to_tape();
    shape::operator=(std::move(other));
    data_ = std::move(other.data_);
    return *this;
  }
  Array& operator=(const Array& other) {
    if (this != &other) *this = Array(other);
    return *this;
  }

  // Value semantics: takes the expression's extents (reallocating if they differ).
  // x = x + 1 works in place; overlapping reads go through a temporary automatically.
  template <class E>
    requires requires { typename std::remove_cvref_t<E>::axes_type; } &&
             (!std::is_same_v<std::remove_cvref_t<E>, Array>)
  Array& operator=(const E& expression) {
    static_assert(detail::require_bound<typename E::unbound_type>::value);
    static_assert(detail::require_not_mapped<typename E::hidden_type>::value);
    static_assert(detail::require_same_axis_set<
                  axes_type, detail::difference_t<typename E::axes_type, typename E::hidden_type>>::value);
    auto extents = detail::extents_by_name<axes_type>(expression);
    // Inside grad, h = f(h) gives h a fresh buffer: the record may still read the old one.
    if (extents == extents_ && data_ && !detail::active_tape)
      detail::evaluate_into(view(), expression);
    else
      *this = Array(expression);
    return *this;
  }

  // Inside grad, a raw pointer into a value that depends on a differentiated argument is an
  // error (it would cut the derivative silently); so is a writable one into what the record reads.
  T* data() {
    detail::check_raw_access(data_.get(), bytes(), true, "data()");
    return data_.get();
  }
  const T* data() const {
    detail::check_raw_access(data_.get(), bytes(), false, "data()");
    return data_.get();
  }
  using shape::extent;
  using shape::extents;
  using shape::size;
  using shape::strides;

  ArrayView<T, As...> view() { return {detail::checked_extents, data_.get(), extents_, strides()}; }
  ArrayView<const T, As...> view() const { return {detail::checked_extents, data_.get(), extents_, strides()}; }

  template <class... Is>
    requires(sizeof...(Is) == rank && (std::is_integral_v<Is> && ...))
  T& operator()(Is... indices) {
    detail::check_raw_access(data_.get(), bytes(), true, "operator()");
    return view()(indices...);
  }
  template <class... Is>
    requires(sizeof...(Is) == rank && (std::is_integral_v<Is> && ...))
  const T& operator()(Is... indices) const {
    detail::check_raw_access(data_.get(), bytes(), false, "operator()");
    return view()(indices...);
  }
  T item() const {
    static_assert(detail::require_rank_zero<axes_type>::value);
    if (!data_) throw shape_error("nax: item() of an empty (moved-from) array");
    detail::check_raw_access(data_.get(), bytes(), false, "item()");
    return data_.get()[0];
  }

  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

  ~Array() { release_to_tape(); }

 private:
  struct uninitialized_t {};
  static constexpr uninitialized_t uninitialized{};
  Array(uninitialized_t, const std::array<index_t, rank>& extents)
      : shape(extents), data_(detail::allocate_aligned<T>(std::max<index_t>(size_, 1))) {}

  std::size_t bytes() const { return data_.get_deleter().bytes; }
  // Inside grad, storage about to be freed or replaced goes to the record, which keeps what
  // the backward pass reads (and every buffer until f returns: f's result may read it).
  void release_to_tape() noexcept {
    if (detail::active_tape && data_) [[unlikely]] {
      const std::size_t n = bytes();
      detail::active_tape->adopt(data_.release(), n);
    }
  }

  std::unique_ptr<T[], detail::aligned_free> data_;
};

// Zero-filled, one-filled and constant arrays; extents in the declared axis order.
template <class T, class... As, class... Ns>
  requires(sizeof...(Ns) == sizeof...(As) && (std::is_integral_v<Ns> && ...))
Array<T, As...> zeros(Ns... extents) {
  return Array<T, As...>(std::array<index_t, sizeof...(As)>{static_cast<index_t>(extents)...});
}
template <class T, class... As, class... Ns>
  requires(sizeof...(Ns) == sizeof...(As) && (std::is_integral_v<Ns> && ...))
Array<T, As...> full(T value, Ns... extents) {
  Array<T, As...> out(std::array<index_t, sizeof...(As)>{static_cast<index_t>(extents)...});
  std::fill(out.begin(), out.end(), value);
  return out;
}
template <class T, class... As, class... Ns>
  requires(sizeof...(Ns) == sizeof...(As) && (std::is_integral_v<Ns> && ...))
Array<T, As...> ones(Ns... extents) {
  return full<T, As...>(T(1), extents...);
}
// 0, 1, ..., n-1 along one named axis.
template <class T, class A>
Array<T, A> arange(index_t n) {
  Array<T, A> out(std::array<index_t, 1>{n});
  for (index_t i = 0; i < n; ++i) out.data()[i] = static_cast<T>(i);
  return out;
}

}  // namespace nax
