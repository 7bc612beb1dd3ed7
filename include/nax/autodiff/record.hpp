// Recorded evaluations (DESIGN 5b): evaluate_recorded, which Array construction, assignment,
// copies and nax::eval reach while a grad runs (core/evaluate_fwd.hpp), and the entry it
// appends. An entry keeps the expression (its leaves view the arrays it read; the tape keeps
// those alive) and the evaluation context, whose memo holds the reductions and contractions
// of the forward pass, so the entry's backward pass (the expression's static rules, as for
// grad's final expression) recomputes none of them. Autodiff layer: needs rules.hpp.
#pragma once
#include <memory>

#include "rules.hpp"

namespace nax::detail {
namespace ad {

template <class Space, class E, class T, class Axes>
struct recorded final : entry_base {
  E expr;
  typename Space::context ctx = Space::make_context();
  explicit recorded(E e) : expr(std::move(e)) {}

  void backward(tape& record, const std::shared_ptr<void>& cotangent, bool keep) override {
    const auto& ct = *static_cast<const typename Space::template array<T, Axes>*>(cotangent.get());
    // The output's axes count as the output's own here (Hout): a cotangent keeps a mapped axis
    // of them down to the leaves, where tape::accumulate knows whether the differentiated
    // output varies over it (keep it per member) or not (sum it over the members).
    state<Space, Axes, std::tuple<>> st{keep ? typename Space::context(ctx) : std::move(ctx), {}};
    st.record = &record;
    backprop(expr, leaf_of(ct.view()), st);
  }
};

inline tape& current_tape() { return static_cast<tape&>(*active_tape); }  // only autodiff sets it

}  // namespace ad

// The host's evaluation of e into out while a grad runs: recorded when e depends on a
// differentiated argument and out can carry a derivative (floating point).
template <class T, class... As, class E>
void evaluate_recorded(const ArrayView<T, As...>& out, const E& e) {
  ad::tape& record = ad::current_tape();
  record.check_enclosing(e);
  record.check_destination(out);  // (also for a constant: the record may read what it would overwrite)
  if (!std::is_floating_point_v<T> || !record.depends_expression(e)) {
    ad::tape::suspension quiet(record);
    host::context ctx;
    host::assign_in_context(out, e, ctx);
    return;
  }
  if constexpr (std::is_floating_point_v<T>) {
    record.check_recording();
    auto entry = std::make_unique<ad::recorded<host_space, E, T, axes<As...>>>(e);
    {
      ad::tape::suspension quiet(record);  // (the memo's temporaries stay in the entry)
      host::assign_in_context(out, entry->expr, entry->ctx);
    }
    auto* expr = &entry->expr;
    record.add_entry(std::move(entry), out, *expr);
  }
}

}  // namespace nax::detail
