// Assignment of an expression to an array view on the host: extents checked by name,
// lowering with the destination's axis order as the loop order, one fused pass, and a
// temporary when an input overlaps the destination in any way other than the same element.
#pragma once
#include <string>

#include "../../expr/leaves.hpp"
#include "../../expr/reduce.hpp"
#include "../../expr/scan.hpp"
#include "../../lower/contiguous.hpp"
#include "context.hpp"
#include "loop.hpp"

namespace nax::detail::host {

// True when some leaf reads memory of `out` at other positions than the one being written.
template <class Ev, class T, std::size_t N>
bool reads_overlap_destination(const Ev& ev, T* out, const std::array<index_t, N>& extents,
                               const std::array<index_t, N>& strides) {
  index_t lo = 0, hi = 0;
  for (std::size_t k = 0; k != N; ++k) {
    if (extents[k] == 0) return false;
    (strides[k] < 0 ? lo : hi) += strides[k] * (extents[k] - 1);
  }
  const char* out_lo = reinterpret_cast<const char*>(out + lo);
  const char* out_hi = reinterpret_cast<const char*>(out + hi + 1);
  bool unsafe = false;
  ev.visit_leaves([&](const auto& leaf) {
    if (!leaf.lo) return;
    const char* leaf_lo = static_cast<const char*>(leaf.lo);
    const char* leaf_hi = static_cast<const char*>(leaf.hi);
    if (leaf_hi <= out_lo || out_hi <= leaf_lo) return;
    bool same_element = sizeof(*leaf.data) == sizeof(T) &&
                        reinterpret_cast<const char*>(leaf.data + leaf.base) == reinterpret_cast<const char*>(out) &&
                        leaf.stride == strides;
    if (!same_element) unsafe = true;
  });
  return unsafe;
}

// The contiguous case (lower/contiguous.hpp): maps of numbers and arrays laid out as out,
// all row-major without gaps, written in one run. False, with nothing written, when out or a
// leaf is not contiguous or a leaf overlaps out other than element for element.
template <class T, class... As, class E>
bool assign_contiguous(const ArrayView<T, As...>& out, const E& e) {
  if (!row_major_contiguous(out.extents(), out.strides())) return false;
  const index_t size = out.size();
  if (size == 0) return true;
  contiguous_destination<sizeof...(As)> destination{size};
  const auto ev = lower_contiguous(e, destination);
  if (!destination.contiguous) return false;
  const char* out_lo = reinterpret_cast<const char*>(out.data());
  const char* out_hi = reinterpret_cast<const char*>(out.data() + size);
  bool overlaps = false;
  ev.visit_leaves([&](const auto& leaf) {
    const char* leaf_lo = static_cast<const char*>(leaf.lo);
    const char* leaf_hi = static_cast<const char*>(leaf.hi);
    if (leaf_hi <= out_lo || out_hi <= leaf_lo) return;
    if (sizeof(*leaf.data) != sizeof(T) || leaf_lo != out_lo) overlaps = true;
  });
  if (overlaps) return false;
  run_contiguous(ev, out.data(), size);
  return true;
}

// Writes e into out using (and adding to) the memo of ctx.
template <class T, class... As, class E>
void assign_in_context(const ArrayView<T, As...>& out, const E& e, context& ctx) {
  using L = axes<As...>;
  using EA = typename E::axes_type;
  static_assert(require_same_axis_set<L, EA>::value);
  static_assert(require_no_narrowing<T, typename E::value_type>::value);
  const auto expression_extents = extents_by_name<L>(e);
  check_assignment_extents(axis_names_v<L>.data(), out.extents().data(), expression_extents.data(), L::size);
  if constexpr (is_scatter_v<E> && std::is_same_v<T, typename E::value_type>) {
    if (assign_scatter(out, e, ctx)) return;  // in place (backend/host/index.hpp)
  }
  if constexpr (is_scan_v<E> && std::is_same_v<T, typename E::value_type>) {
    if (assign_scan(out, e, ctx)) return;  // in place (backend/host/scan.hpp)
  }
  if constexpr (is_reduce_v<E> && std::is_same_v<T, typename E::value_type>) {
    if (assign_reduce(out, e, ctx)) return;  // into out, no temporary (backend/host/reduce.hpp)
  }
  if constexpr (contiguous_lowerable_v<L, E>) {
    if (assign_contiguous(out, e)) return;
  }
  auto ev = lower<last_t<L>>(e, identity_placement<EA, L>(), ctx);
  if (reads_overlap_destination(ev, out.data(), out.extents(), out.strides())) {
    Array<T, As...> temporary(out.extents());
    run_elementwise(ev, temporary.data(), temporary.extents(), temporary.strides());
    auto copy = lower<last_t<L>>(leaf_of(temporary.view()), identity_placement<L, L>(), ctx);
    run_elementwise(copy, out.data(), out.extents(), out.strides());
  } else {
    run_elementwise(ev, out.data(), out.extents(), out.strides());
  }
}

// Any expression as a strided leaf: leaves as they are, everything else evaluated once
// into a temporary (mapped axes included; internal evaluations skip the user's checks).
template <class E>
auto materialise_any(const E& e, context& ctx) {
  if constexpr (is_leaf_v<E>) {
    return e;
  } else {
    using T = typename E::value_type;
    auto out = std::make_shared<array_for_t<T, typename E::axes_type>>(no_fill, e.extents());
    assign_in_context(out->view(), e, ctx);
    return leaf_of(std::as_const(*out).view(), out);
  }
}

}  // namespace nax::detail::host

namespace nax::detail {
// An evaluation while a grad runs, in a translation unit that does not record (compiled with
// NAX_NO_TAPE, or with nax's headers included before <nax/nax.hpp>): an error when it depends
// on a differentiated argument, instead of a derivative silently 0.
[[noreturn]] inline void evaluation_not_recorded() {
  throw argument_error(
      "nax: grad: f evaluates an intermediate that depends on a differentiated argument, in a translation unit "
      "that does not record evaluations (compiled with NAX_NO_TAPE, or including nax's headers before "
      "<nax/nax.hpp>): its derivative would be lost. Compile it without NAX_NO_TAPE, or write the value as one "
      "lazy expression");
}
template <class T, class... As, class E>
void evaluate_unrecorded(const ArrayView<T, As...>& out, const E& e) {
  if (std::is_floating_point_v<T> && depends_on_tape(e, *active_tape)) evaluation_not_recorded();
  tape_suspension quiet(*active_tape);
  host::context ctx;
  host::assign_in_context(out, e, ctx);
}

// Array's copy constructor inside grad: recorded like any evaluation, or (not recording) a
// plain copy unless it would lose a derivative. Both row-major, same extents.
template <class T, class... As>
void copy_in_grad(const ArrayView<T, As...>& out, const ArrayView<const T, As...>& in) {
#if defined(NAX_TAPE_RECORDING)
  evaluate_recorded(out, leaf_of(in));
#else
  if (std::is_floating_point_v<T> && depends_on_tape(leaf_of(in), *active_tape)) evaluation_not_recorded();
  std::copy_n(in.data(), in.size(), out.data());
#endif
}

template <class T, class... As, class E>
void evaluate_into(const ArrayView<T, As...>& out, const E& e) {
  static_assert(require_bound<unbound_t<expr_t<const E&>>>::value);
  static_assert(require_not_mapped<hidden_t<expr_t<const E&>>>::value);
  if (active_tape) [[unlikely]] {  // inside grad (autodiff/tape.hpp)
#if defined(NAX_TAPE_RECORDING)
    return evaluate_recorded(out, as_expr(e));
#else
    return evaluate_unrecorded(out, as_expr(e));
#endif
  }
  host::context ctx;
  if constexpr (expression<E>) host::assign_in_context(out, e, ctx);  // (as_expr would copy the tree)
  else host::assign_in_context(out, as_expr(e), ctx);
}
}  // namespace nax::detail
