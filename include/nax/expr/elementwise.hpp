// Map: the one elementwise node. Applies a functor to the values of its children at the
// same named index. Its axes are the union of the children's axes, in order of first
// appearance (broadcasting by name); equal names must have equal extents.
#pragma once
#include <string>
#include <string_view>
#include "../core/pack.hpp"
#include "node.hpp"

namespace nax::detail {

template <class... As>
constexpr std::array<std::string_view, sizeof...(As)> axis_name_table(axes<As...>) {
  return {axis_name<As>()...};
}

template <class F, class... Cs>
struct Map : node_interface<Map<F, Cs...>> {
  using axes_type = union_t<typename Cs::axes_type...>;
  using value_type = typename F::template result<typename Cs::value_type...>;
  using hidden_type = union_t<hidden_t<Cs>...>;
  using unbound_type = union_t<unbound_t<Cs>...>;
  static constexpr std::size_t rank = axes_type::size;

  pack<Cs...> children;
  std::array<index_t, rank> extents_{};

  explicit Map(Cs... cs) : children{{{std::move(cs)}...}} {
    std::array<bool, rank> seen{};
    std::array<int, rank> first_operand{};
    gather(seen, first_operand, std::index_sequence_for<Cs...>{});
  }

  const std::array<index_t, rank>& extents() const { return extents_; }

 private:
  // Each child's extents into extents_, by name (no lambda per child type: docs/compile_time.md).
  template <std::size_t... K>
  void gather(std::array<bool, rank>& seen, std::array<int, rank>& first_operand, std::index_sequence<K...>) {
    (absorb_child<typename Cs::axes_type>(static_cast<const pack_slot<K, Cs>&>(children).value.extents(), int(K),
                                          seen, first_operand),
     ...);
  }
  template <class CA>
  void absorb_child(const std::array<index_t, CA::size>& child_extents, int operand, std::array<bool, rank>& seen,
                    std::array<int, rank>& first_operand) {
    if constexpr (CA::size > 0) {
      constexpr auto positions = positions_in_map(CA{});
      for (std::size_t j = 0; j < CA::size; ++j) absorb(positions[j], child_extents[j], operand, seen, first_operand);
    }
  }
  template <class... Ax>
  static constexpr std::array<std::size_t, sizeof...(Ax)> positions_in_map(axes<Ax...>) {
    return {index_of_v<Ax, axes_type>...};
  }
  void absorb(std::size_t r, index_t extent, int operand, std::array<bool, rank>& seen,
              std::array<int, rank>& first_operand) {
    if (!seen[r]) {
      seen[r] = true;
      extents_[r] = extent;
      first_operand[r] = operand;
    } else if (extents_[r] != extent) {
      throw shape_error("nax: extent mismatch on axis '" + std::string(axis_name_table(axes_type{})[r]) +
                        "': " + std::to_string(extents_[r]) + " in operand " + std::to_string(first_operand[r] + 1) +
                        ", " + std::to_string(extent) + " in operand " + std::to_string(operand + 1) +
                        " (axes are matched by name; equal names need equal extents)");
    }
  }
};

template <class F, class... Xs>
auto make_map(Xs&&... xs) {
  return Map<F, expr_t<Xs>...>(as_expr(std::forward<Xs>(xs))...);
}

// A C++ number next to an array adopts the array's type unless it is of a higher kind
// (bool < integer < floating), as JAX's weakly typed Python scalars.
template <class Other, class X>
decltype(auto) weak_operand(X&& x) {
  using D = std::remove_cvref_t<X>;
  if constexpr (element<D>) {
    using V = typename expr_t<Other>::value_type;
    using W = weak_promote_t<V, D>;
    // A number that does not fit the array's integer type is an error, as in JAX (never a wrap).
    if constexpr (std::is_integral_v<W> && std::is_integral_v<D> && !std::is_same_v<W, bool>) {
      // (the sign is tested only on the signed side: nvcc warns on `unsigned < 0`)
      bool sign_changes = false;
      if constexpr (std::is_signed_v<D> && !std::is_signed_v<W>) sign_changes = x < D(0);
      else if constexpr (!std::is_signed_v<D> && std::is_signed_v<W>) sign_changes = static_cast<W>(x) < W(0);
      if (static_cast<D>(static_cast<W>(x)) != x || sign_changes)
        throw argument_error("nax: the number " + std::to_string(x) + " does not fit the array's element type (" +
                             std::to_string(sizeof(W) * 8) + "-bit " + (std::is_signed_v<W> ? "signed" : "unsigned") +
                             " integer); convert the array with nax::cast<T> first");
    }
    return Scalar<W>{{}, static_cast<W>(x)};
  } else {
    return std::forward<X>(x);
  }
}

template <class F, class A, class B>
auto make_binary(A&& a, B&& b) {
  if constexpr (element<std::remove_cvref_t<A>>) {
    return make_map<F>(weak_operand<B>(std::forward<A>(a)), std::forward<B>(b));
  } else if constexpr (element<std::remove_cvref_t<B>>) {
    return make_map<F>(std::forward<A>(a), weak_operand<A>(std::forward<B>(b)));
  } else {
    static_assert(require_promotable<typename expr_t<A>::value_type, typename expr_t<B>::value_type>::value);
    return make_map<F>(std::forward<A>(a), std::forward<B>(b));
  }
}

}  // namespace nax::detail
