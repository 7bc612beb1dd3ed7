// Map: the one elementwise node. Applies a functor to the values of its children at the
// same named index. Its axes are the union of the children's axes, in order of first
// appearance (broadcasting by name); equal names must have equal extents.
#pragma once
#include <string>
#include <string_view>
#include "../core/pack.hpp"
#include "node.hpp"

namespace nax::detail {

// An operand's extents into an elementwise node's, by name: the operand's axis j is the node's
// axis positions[j]. The first operand that has an axis sets its extent (first_operand < 0
// until then); every later one must agree. One plain function for every node type: at -O0 a
// loop and a message built in the template would be emitted again for each (docs/compile_time.md).
[[noreturn]] inline void throw_extent_mismatch(std::string_view axis, index_t first, int first_operand, index_t extent,
                                               int operand) {
  throw shape_error("nax: extent mismatch on axis '" + std::string(axis) + "': " + std::to_string(first) +
                    " in operand " + std::to_string(first_operand + 1) + ", " + std::to_string(extent) +
                    " in operand " + std::to_string(operand + 1) +
                    " (axes are matched by name; equal names need equal extents)");
}
inline void merge_extents(index_t* merged, int* first_operand, const std::string_view* names,
                          const std::size_t* positions, const index_t* extents, std::size_t n, int operand) {
  for (std::size_t j = 0; j != n; ++j) {
    const std::size_t r = positions[j];
    if (first_operand[r] < 0) {
      merged[r] = extents[j];
      first_operand[r] = operand;
    } else if (merged[r] != extents[j]) {
      throw_extent_mismatch(names[r], merged[r], first_operand[r], extents[j], operand);
    }
  }
}

// Where each axis of From sits in To.
template <class From, class To>
inline constexpr auto axis_positions_v = []<class... Ax>(axes<Ax...>) {
  return std::array<std::size_t, sizeof...(Ax)>{index_of_v<Ax, To>...};
}(From{});

struct map_operands_t {};
inline constexpr map_operands_t map_operands{};

template <class F, class... Cs>
struct Map : node_interface<Map<F, Cs...>> {
  using axes_type = union_t<typename Cs::axes_type...>;
  using value_type = typename F::template result<typename Cs::value_type...>;
  using hidden_type = union_t<hidden_t<Cs>...>;
  using unbound_type = union_t<unbound_t<Cs>...>;
  static constexpr std::size_t rank = axes_type::size;

  pack<Cs...> children;
  std::array<index_t, rank> extents_{};

  // Each child made in place from its operand (as_expr's result initialises it directly: a
  // subtree passed as an rvalue is moved once, an array's leaf is made where it stays).
  template <class... Xs>
  explicit Map(map_operands_t, Xs&&... xs) : children{{as_expr(std::forward<Xs>(xs))}...} {
    if constexpr (rank > 0) {
      std::array<int, rank> first_operand;
      first_operand.fill(-1);
      gather(first_operand.data(), std::index_sequence_for<Cs...>{});
    }
  }

  const std::array<index_t, rank>& extents() const { return extents_; }

 private:
  // Each child's extents into extents_, by name (no lambda or function per child type).
  template <std::size_t... K>
  void gather(int* first_operand, std::index_sequence<K...>) {
    (merge_extents(extents_.data(), first_operand, axis_names_v<axes_type>.data(),
                   axis_positions_v<typename Cs::axes_type, axes_type>.data(),
                   static_cast<const pack_slot<K, Cs>&>(children).value.extents().data(), Cs::axes_type::size, int(K)),
     ...);
  }
};

template <class F, class... Xs>
auto make_map(Xs&&... xs) {
  return Map<F, expr_t<Xs>...>(map_operands, std::forward<Xs>(xs)...);
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
