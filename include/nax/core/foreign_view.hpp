// nax::view_of<As...>(m): a named-axis view of memory another library owns, without a copy.
// m gives its pointer as data_handle() (std::mdspan) or data() (Kokkos::View, a strided view
// of your own), its rank() (static or run-time), and extent(k) and stride(k) in elements for
// each index k (std::mdspan's layout_right, layout_left and layout_stride mappings all answer
// stride(k)). The axis names are the caller's, one per index of m, in m's index order. As for any view, the memory must
// outlive it. Back the other way, an ArrayView gives data(), extents() and strides(), which is
// what a std::mdspan with layout_stride or a Kokkos::View with LayoutStride is built from.
// Core layer.
#pragma once
#include <string>
#include <type_traits>

#include "array_view.hpp"
#include "errors.hpp"

namespace nax {
namespace detail {

template <class M>
auto* pointer_of(M& m) {
  if constexpr (requires { m.data_handle(); }) return m.data_handle();
  else return m.data();
}

template <std::size_t Rank, class Axes>
struct require_foreign_rank {
  static_assert(Rank == Axes::size,
                "nax: view_of<Axes...>(m): give one axis name per index of m; m has Rank indices, and Axes names "
                "another number of axes");
  static constexpr bool value = true;
};

template <class M>
struct require_foreign_rank_known {
  static_assert(requires(const M& m) { m.rank(); },
                "nax: view_of(m): m (M) says nothing of its rank: it needs a rank() (static, as std::mdspan's, or "
                "run-time, as Kokkos::View's), so that a wrong number of axis names is caught");
  static constexpr bool value = true;
};

}  // namespace detail

template <class... As, class M>
auto view_of(M&& m) {
  using D = std::remove_cvref_t<M>;
  constexpr std::size_t N = sizeof...(As);
  static_assert(detail::require_foreign_rank_known<D>::value);
  if constexpr (requires { std::integral_constant<std::size_t, D::rank()>{}; }) {
    static_assert(detail::require_foreign_rank<D::rank(), axes<As...>>::value);
  } else if constexpr (requires { m.rank(); }) {
    if (static_cast<std::size_t>(m.rank()) != N)
      throw shape_error("nax: view_of: the view has " + std::to_string(m.rank()) + " indices, but " +
                        std::to_string(N) + " axis names were given");
  }
  auto* p = detail::pointer_of(m);
  using T = std::remove_pointer_t<decltype(p)>;
  std::array<index_t, N> extents{}, strides{};
  for (std::size_t k = 0; k != N; ++k) {
    extents[k] = static_cast<index_t>(m.extent(k));
    strides[k] = static_cast<index_t>(m.stride(k));
    if (extents[k] < 0)
      throw shape_error("nax: view_of: index " + std::to_string(k) + " of the view has the negative extent " +
                        std::to_string(extents[k]));
  }
  return ArrayView<T, As...>(p, extents, strides);
}

}  // namespace nax
