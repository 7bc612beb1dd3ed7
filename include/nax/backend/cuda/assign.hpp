// Assignment of an expression to device memory: extents checked by name, lowering with the
// destination's axis order as the loop order (the same lower() as the host backend), one
// kernel, and a temporary when an input overlaps the destination other than element-wise.
// Also the definitions of nax::cuda::Array's and ArrayView's evaluating members, and
// nax::cuda::eval / item.
#pragma once
#include <string>

#include "../../expr/leaves.hpp"
#include "../../expr/scan.hpp"
#include "../host/evaluate.hpp"
#include "elementwise.hpp"

namespace nax::cuda::detail {

template <class E>
using expr_t = nax::detail::expr_t<E>;

template <class T, class... As>
nax::ArrayView<T, As...> mutable_host_view(nax::cuda::Array<T, As...>& a) {
  return {a.data(), a.extents()};
}

// Writes e into out (a host-typed view of device memory) on ctx's device.
template <class T, class... As, class E>
void assign_in_context(const nax::ArrayView<T, As...>& out, const E& e, context& ctx) {
  using L = axes<As...>;
  using EA = typename E::axes_type;
  static_assert(nax::detail::require_same_axis_set<L, EA>::value);
  static_assert(nax::detail::require_no_narrowing<T, typename E::value_type>::value);
  static_assert(require_one_memory_space<L, reads_host<E>::value>::value);
  const auto expression_extents = nax::detail::extents_by_name<L>(e);
  nax::detail::check_assignment_extents(nax::detail::axis_names_v<L>.data(), out.extents().data(), expression_extents.data(), L::size);
  if constexpr (nax::detail::is_scatter_v<E> && std::is_same_v<T, typename E::value_type>) {
    if (assign_scatter(out, e, ctx)) return;  // in place (backend/host/index.hpp)
  }
  if constexpr (nax::detail::is_scan_v<E> && std::is_same_v<T, typename E::value_type>) {
    if (assign_scan(out, e, ctx)) return;  // in place (backend/host/scan.hpp)
  }
  auto ev = nax::detail::lower<nax::detail::last_t<L>>(e, nax::detail::identity_placement<EA, L>(), ctx);
  if (nax::detail::host::reads_overlap_destination(ev, out.data(), out.extents(), out.strides())) {
    device_guard guard(ctx.device);
    nax::cuda::Array<T, As...> temporary(nax::cuda::Array<T, As...>::uninitialized, out.extents());
    run_elementwise(ev, temporary.data(), temporary.extents(), temporary.strides(), ctx);
    auto copy = nax::detail::lower<nax::detail::last_t<L>>(leaf_of(std::as_const(temporary).view()).as_leaf(),
                                                           nax::detail::identity_placement<L, L>(), ctx);
    run_elementwise(copy, out.data(), out.extents(), out.strides(), ctx);
  } else {
    run_elementwise(ev, out.data(), out.extents(), out.strides(), ctx);
  }
}

// Inside grad (autodiff/tape.hpp): the CUDA backend does not record evaluations yet, so one
// that depends on a differentiated argument raises instead of giving a derivative of 0.
template <class T, class E>
void refuse_recorded_evaluation(const E& e, const char* what) {
  if (nax::detail::tape_interface* tape = nax::detail::active_tape) [[unlikely]] {
    if (std::is_floating_point_v<T> && nax::detail::depends_on_tape(e, *tape))
      throw nax::argument_error(std::string("nax: grad: f ") + what +
                                " that depends on a differentiated argument; the CUDA backend does not record "
                                "evaluations inside grad yet, so its derivative would be lost: write the value as "
                                "one lazy expression");
  }
}

// Evaluates the user's expression into out on `device`.
template <class T, class... As, class X>
void evaluate_into(const nax::ArrayView<T, As...>& out, const X& x, int device) {
  using E = expr_t<const X&>;
  static_assert(nax::detail::require_bound<nax::detail::unbound_t<E>>::value);
  static_assert(nax::detail::require_not_mapped<nax::detail::hidden_t<E>>::value);
  refuse_recorded_evaluation<T>(nax::detail::as_expr(x), "evaluates an intermediate of device arrays");
  context ctx(device);
  assign_in_context(out, nax::detail::as_expr(x), ctx);
}

// Any expression as a device leaf (a DeviceLeaf, so what is built on it stays on the device):
// device leaves as they are, everything else evaluated once into a temporary device array.
template <class E>
auto materialise_any(const E& e, context& ctx) {
  if constexpr (is_device_leaf_v<E>) {
    return ctx.here(e);
  } else {
    using T = typename E::value_type;
    device_guard guard(ctx.device);
    auto out = std::make_shared<device_array_for_t<T, typename E::axes_type>>(
        device_array_for_t<T, typename E::axes_type>::uninitialized, e.extents());
    assign_in_context(mutable_host_view(*out), e, ctx);
    return leaf_of(std::as_const(*out).view(), out);
  }
}

}  // namespace nax::cuda::detail

namespace nax::cuda {

template <class T, class... As>
template <class E>
  requires requires { typename std::remove_cvref_t<E>::axes_type; } &&
           (!std::is_same_v<std::remove_cvref_t<E>, Array<T, As...>>)
Array<T, As...>::Array(const E& expression)
    : Array(uninitialized, [&] {
        static_assert(nax::detail::require_same_axis_set<
                      axes_type, nax::detail::difference_t<typename E::axes_type, typename E::hidden_type>>::value);
        return nax::detail::extents_by_name<axes_type>(expression);
      }()) {
  detail::evaluate_into(detail::mutable_host_view(*this), expression, device());
}

template <class T, class... As>
template <class E>
  requires requires { typename std::remove_cvref_t<E>::axes_type; } &&
           (!std::is_same_v<std::remove_cvref_t<E>, Array<T, As...>>)
Array<T, As...>& Array<T, As...>::operator=(const E& expression) {
  static_assert(nax::detail::require_same_axis_set<
                axes_type, nax::detail::difference_t<typename E::axes_type, typename E::hidden_type>>::value);
  auto extents = nax::detail::extents_by_name<axes_type>(expression);
  if (extents == extents_ && (size_ == 0 || data()))
    detail::evaluate_into(detail::mutable_host_view(*this), expression, device());
  else
    *this = Array(expression);
  return *this;
}

template <class T, class... As>
template <class E>
const ArrayView<T, As...>& ArrayView<T, As...>::assign(const E& expr) const {
  static_assert(!std::is_const_v<T>, "nax: assign() writes through a view of const data");
  detail::evaluate_into(view_, expr, device_);
  return *this;
}

// eval(e) on the device: a nax::cuda::Array with e's axes (in e's order).
template <class X>
  requires array_like<X>
auto eval(const X& x) {
  using E = detail::expr_t<const X&>;
  if constexpr (nax::detail::hidden_t<E>::size == 0 && nax::detail::unbound_t<E>::size == 0)
    return detail::device_array_for_t<typename E::value_type, typename E::axes_type>(nax::detail::as_expr(x));
  else
    return nax::detail::evaluate_mapped(nax::detail::as_expr(x));  // (an evaluated mapped value)
}

}  // namespace nax::cuda

namespace nax::detail {
// nax::eval of a device expression (and the maps that evaluate their results) gives a
// nax::cuda::Array.
template <class E>
struct eval_array<E, std::enable_if_t<nax::cuda::detail::reads_device<E>::value>> {
  using type = nax::cuda::detail::device_array_for_t<typename E::value_type, typename E::axes_type>;
};
}  // namespace nax::detail
