// nax::checkpoint(f) (jax.checkpoint, "remat"): inside grad, a call of f keeps only its
// arguments and its output; its intermediates are recomputed in the backward pass instead of
// kept. The call is one tape entry (tape.hpp): f runs unrecorded (each intermediate is freed as
// soon as f lets it go), its output is evaluated; the entry's backward runs f again under its
// own tape (nax::vjp) on the same arguments and sends the cotangents it gives back into them.
// Outside grad, or when no argument depends on a differentiated one, it is f, evaluated.
#pragma once
#include <memory>
#include <tuple>
#include <utility>

#include "custom_vjp.hpp"
#include "vjp.hpp"

namespace nax {
namespace detail::ad {

template <class F, class Args, class T, class Axes, class Hidden>
struct checkpoint_entry final : cotangent_entry<checkpoint_entry<F, Args, T, Axes, Hidden>, T, Axes, Hidden> {
  F f;
  Args args;  // the arguments' expressions (their storage pinned by the tape)
  checkpoint_entry(F fn, Args a) : f(std::move(fn)), args(std::move(a)) {}

  template <class Ct>
  void run(tape& record, const Ct& ct) {
    // The forward pass again, recorded this time (vjp owns copies of the arguments while it runs).
    auto [value, pullback] = std::apply([&](const auto&... a) { return nax::vjp(f)(a...); }, args);
    auto returned = pullback(ct);
    state<host_space, Axes, std::tuple<>> st{host_space::make_context(), {}};
    st.record = &record;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (send_to_argument(std::get<K>(args), std::get<K>(returned), K, "checkpoint", st), ...);
    }(std::make_index_sequence<std::tuple_size_v<Args>>{});
  }
};

template <class F>
struct checkpointed {
  F f;

  template <class... Args>
  auto operator()(const Args&... args) const {
    tape_interface* active = active_tape;
    if (!active || !any_depends(*active, args...)) [[likely]] return nax::eval(f(args...));
    tape& record = current_tape();
    if (record.forward()) return nax::eval(f(args...));  // jvp: nothing to recompute, f's evaluations carry tangents
    record.check_recording();
    (record.check_enclosing(as_expr(args)), ...);
    tape_pause pause;  // f's intermediates are freed as it goes
    auto out = as_expr(f(args...));
    using E = decltype(out);
    using T = typename E::value_type;
    auto value = nax::eval(out);
    if constexpr (std::is_floating_point_v<T>) {
      auto kept = std::make_tuple(kept_argument(args)...);
      auto entry = std::make_unique<checkpoint_entry<F, decltype(kept), T, typename E::axes_type, hidden_t<E>>>(f, kept);
      record.add_entry(std::move(entry), storage_view(value), as_expr(args)...);
    }
    return value;
  }
};

}  // namespace detail::ad

// checkpoint(f): f, whose intermediates grad recomputes instead of keeping (see above).
template <class F>
auto checkpoint(F f) {
  return detail::ad::checkpointed<F>{std::move(f)};
}

}  // namespace nax
