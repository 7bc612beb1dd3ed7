// optax.add_decayed_weights(weight_decay, mask) (optax 0.2.8, optax/transforms/_adding.py with
// optax.masked): update = u + weight_decay * p on the leaves the mask selects, u elsewhere (and
// everywhere when the weight decay is the constant 0, as optax skips it). weight_decay is a
// number (state EmptyState) or a schedule (state WeightDecaySchedule: its count). The mask is
// all_leaves (no mask), a pytree of bools shaped as the parameters, or a predicate
// bool(const auto& leaf) called on each parameter leaf. optax wraps a masked transform's state
// in MaskedState(inner_state); here the state is the inner state itself.
#pragma once
#include <vector>

#include "scale.hpp"

namespace nax::optim {

// No mask: every leaf decays.
struct all_leaves {};

template <class C = Count>
struct WeightDecaySchedule {
  BOOST_HANA_DEFINE_STRUCT(WeightDecaySchedule, (C, count));
};

namespace detail {
template <class Mask>
inline constexpr bool is_tree_mask_v =
    !std::is_same_v<Mask, all_leaves> && tree_kind_v<Mask> != tree_kind::not_a_tree;
}  // namespace detail

template <class Rate = double, class Mask = all_leaves>
struct add_decayed_weights : transform_base<add_decayed_weights<Rate, Mask>> {
  static_assert(detail::require_scalar_or_schedule<Rate>::value);
  static constexpr bool scheduled = !std::is_arithmetic_v<Rate>;
  static constexpr bool needs_params = true;
  Rate weight_decay;
  Mask mask;
  explicit add_decayed_weights(Rate wd = Rate(0), Mask m = {}) : weight_decay(std::move(wd)), mask(std::move(m)) {}

  static constexpr std::size_t moments = 0;
  template <class P>
  using state_shape = std::conditional_t<scheduled, WeightDecaySchedule<>, EmptyState>;
  template <class P>
  auto init(const P&) const {
    if constexpr (scheduled) return WeightDecaySchedule<>{detail::make_count(0)};
    else return EmptyState{};
  }
  template <std::size_t J, class S>
  static void moment(S&&);

  struct step_t {
    double rate;
    bool skip;                 // the constant 0
    std::int64_t next_count;   // (schedules)
    std::vector<char> chosen;  // a tree mask, flattened depth-first
  };
  template <class S, class P, class Up>
  step_t begin(const S& state, const P& params, const Up&) const {
    step_t s{};
    if constexpr (scheduled) {
      const std::int64_t count = detail::read_count(detail::child<0>(state));
      s.rate = value_at(weight_decay, count);
      s.next_count = detail::safe_increment(count);
    } else {
      s.rate = static_cast<double>(weight_decay);
      s.skip = s.rate == 0.0;
    }
    if constexpr (detail::is_tree_mask_v<Mask>) {
      static_assert(detail::require_mask_matches_params<P, Mask>::value);
      nax::tree_reduce(
          [&](int, bool b) {
            s.chosen.push_back(b ? 1 : 0);
            return 0;
          },
          mask, 0);
    }
    (void)params;
    return s;
  }
  template <class U, class P>
  auto leaf(const step_t& s, std::size_t i, U&& u, const P& p) const {
    using T = detail::value_t<U>;
    bool decays = !s.skip;
    if constexpr (detail::is_tree_mask_v<Mask>) decays = decays && s.chosen.at(i) != 0;
    else if constexpr (!std::is_same_v<Mask, all_leaves>) decays = decays && static_cast<bool>(mask(p));
    auto update = nax::where(decays, u + T(s.rate) * p, u);  // exactly u where it does not decay
    return std::make_tuple(std::move(update));
  }
  template <class S>
  auto finish(const step_t& s, S&&) const {
    if constexpr (scheduled) return detail::make_state<WeightDecaySchedule, S>(detail::make_count(s.next_count));
    else return EmptyState{};
  }
};

}  // namespace nax::optim
