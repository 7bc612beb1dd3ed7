// Reverse-mode rules of the scans (expr/scan.hpp). Included by rules.hpp before backprop's
// definition. Each cotangent is a lazy node, so grad(grad(f)) differentiates it again:
//   - cumsum: ct summed from the other end (lax's transpose of cumsum: `reverse` flipped);
//   - cummax, cummin: each output's cotangent goes to the element its value came from, the
//     first element (in scan order) of the current run of the running extreme: a
//     scatter_add at those positions, as take's adjoint. Where JAX's associative scan splits a
//     tie between equal elements in tree-dependent shares, nax gives it to the first;
//     without ties the two agree;
//   - cumprod: along each line, with y = cumprod(x) and ct the cotangent, the exact derivative
//     dL/dx_j = sum over i at or after j (in scan order) of ct_i * prod_{k <= i, k != j} x_k,
//     without dividing by zero (cumprod_parts below):
//       x_j != 0:             cumsum(ct * y, !reverse)_j / x_j (x_j replaced by 1 where it is 0,
//                             so no branch divides by zero: its gradient under grad(grad) is finite);
//       x_j the first zero:   cumsum(ct * y1, !reverse)_j, y1 the cumprod with x_j replaced by 1
//                             (y1_i holds every factor but x_j: exact);
//       x_j the second zero:  the same with y2, the cumprod with that zero replaced by 1;
//       a later zero:         0 (the exact value has two zero factors, the first and second zeros).
//     The first three branches equal the exact derivative as functions of x near x (the masks
//     fixed), the last one to first order, so grad(grad(f)), which differentiates these nodes
//     by the same rules, is exact too, however many zeros a line has. JAX differentiates an
//     associative scan of multiplications; nax divides, so the two agree to rounding, not bit
//     for bit (and where y_i underflows or overflows while y_i / x_j would not, the division
//     loses what JAX keeps).
#pragma once
#include <cstdint>
#include <limits>

#include "../expr/gather_layouts.hpp"
#include "../expr/scan.hpp"
#include "cotangent.hpp"

namespace nax::detail {

// For a cummax or cummin node s: the position along A that each output's value came from (the
// element that started the current run of the running extreme), as an int64 expression.
template <class Op, class C, class A>
auto running_extreme_sources(const Scan<Op, C, A>& s) {
  using T = typename C::value_type;
  const index_t n = extent_of<A>(s);
  auto i = axis_index<A, index_t>(n);
  // the output one step earlier in scan order (none before the first: position n, out of
  // range, reads NaN, which equals nothing)
  auto step = i + (s.reverse ? index_t(1) : index_t(-1));
  auto previous = make_take<A>(s, where(step >= index_t(0), step, n), index_mode::fill,
                               std::numeric_limits<T>::quiet_NaN());
  // Positions as keys that grow in scan order (j, or n - 1 - j when reverse): the nearest run
  // start at or before each position is the running maximum of the starts' keys.
  const index_t sign = s.reverse ? -1 : 1, offset = s.reverse ? n - 1 : 0;
  auto keys = where(s != previous, i * sign + offset, index_t(-1));
  return Scan<max_op, decltype(keys), A>{{}, std::move(keys), s.reverse} * sign + offset;
}

// The pieces of cumprod's derivatives (reverse and forward: autodiff/forward.hpp) for the node
// s = cumprod<A>(x): masks of x's zeros by their rank along the line in scan order (a cumsum of
// x == 0), x with its zeros replaced by 1 (a divisor), and the cumprods of x without its first
// and without its second zero.
template <class C, class A>
auto cumprod_parts(const Scan<prod_op, C, A>& s) {
  using T = typename C::value_type;
  auto is_zero = make_map<fn::equal_to>(s.child, Scalar<T>{{}, T(0)});
  Scan<sum_op, decltype(is_zero), A> rank{{}, is_zero, s.reverse};  // zeros so far (int32)
  auto nth = [&](std::int32_t k) {
    return make_map<fn::logical_and>(is_zero, make_map<fn::equal_to>(rank, Scalar<std::int32_t>{{}, k}));
  };
  auto without = [&](auto mask) {
    auto replaced = make_map<fn::select>(std::move(mask), Scalar<T>{{}, T(1)}, s.child);
    return Scan<prod_op, decltype(replaced), A>{{}, std::move(replaced), s.reverse};
  };
  auto first = nth(1), second = nth(2);
  auto divisor = make_map<fn::select>(is_zero, Scalar<T>{{}, T(1)}, s.child);
  auto y1 = without(first), y2 = without(second);
  using Mask = decltype(first);
  using Divisor = decltype(divisor);
  using Without = decltype(y1);
  struct parts {
    decltype(is_zero) zero;
    Mask first, second;
    Divisor divisor;
    Without y1, y2;
  };
  return parts{is_zero, first, second, divisor, y1, y2};
}

}  // namespace nax::detail

namespace nax::detail::ad {

template <class E, class Ct, class St>
void backprop(const E& e, Ct ct, St& st);

template <class Op>
struct require_scan_rule {
  static_assert(std::is_same_v<Op, sum_op> || std::is_same_v<Op, prod_op> || std::is_same_v<Op, max_op> ||
                    std::is_same_v<Op, min_op>,
                "nax: grad: a scan of this op (Op) has no rule: add its case to autodiff/rules_scan.hpp and "
                "autodiff/forward.hpp");
  static constexpr bool value = true;
};

template <class Op, class C, class A, class Ct, class St>
void rule(const Scan<Op, C, A>& s, const Ct& ct, St& st) {
  using Node = Scan<Op, C, A>;
  using T = typename C::value_type;
  static_assert(require_scan_rule<Op>::value);
  // every axis of the node first (a cotangent constant along A is spread along it)
  auto full = spread<typename Node::axes_type, hidden_t<Node>>(ct, s.extents());
  if constexpr (std::is_same_v<Op, prod_op>) {
    auto z = cumprod_parts(s);
    auto from_here = [&](const auto& y) {  // sum over i at or after each position of ct_i * y_i
      auto e = make_map<fn::multiplies>(full, y);
      return Scan<sum_op, decltype(e), A>{{}, std::move(e), !s.reverse};
    };
    auto zero = Scalar<T>{{}, T(0)};
    auto at_zero =
        make_map<fn::select>(z.first, from_here(z.y1), make_map<fn::select>(z.second, from_here(z.y2), zero));
    auto at_nonzero = make_map<fn::divides>(from_here(s), z.divisor);
    backprop(s.child, make_map<fn::select>(z.zero, std::move(at_zero), std::move(at_nonzero)), st);
  } else if constexpr (std::is_same_v<Op, sum_op>) {
    backprop(s.child, Scan<sum_op, decltype(full), A>{{}, std::move(full), !s.reverse}, st);
  } else {
    auto sources = running_extreme_sources(s);
    auto zeros = spread<typename C::axes_type, hidden_t<C>>(Scalar<T>{{}, T(0)}, s.child.extents());
    backprop(s.child,
             Scatter<scatter_add_op, decltype(zeros), decltype(sources), decltype(full), A>(
                 std::move(zeros), std::move(sources), std::move(full), index_mode::clip),
             st);
  }
}

}  // namespace nax::detail::ad
