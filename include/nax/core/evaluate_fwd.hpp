// Declaration of the evaluation entry point that Array and ArrayView call; the backend
// layer defines it (backend/host/assign.hpp). Keeps core free of includes from above.
#pragma once

namespace nax {
template <class T, class... As>
class ArrayView;

namespace detail {
// Writes expression e into out, mapping axes by name; throws shape_error on extent mismatch.
template <class T, class... As, class E>
void evaluate_into(const ArrayView<T, As...>& out, const E& e);
// evaluate_into while a grad runs (core/tape_hooks.hpp): records the evaluation when e
// depends on a differentiated argument. Defined by the autodiff layer (autodiff/tape.hpp).
template <class T, class... As, class E>
void evaluate_recorded(const ArrayView<T, As...>& out, const E& e);
// An Array's copy while a grad runs (a recorded evaluation when the source depends on a
// differentiated argument); defined with evaluate_into (backend/host/assign.hpp).
template <class T, class... As>
void copy_in_grad(const ArrayView<T, As...>& out, const ArrayView<const T, As...>& in);
}  // namespace detail
}  // namespace nax
