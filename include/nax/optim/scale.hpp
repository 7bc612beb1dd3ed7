// Scaling transforms (optax 0.2.8, optax/_src/transform.py and base.py): identity, scale(step),
// scale_by_schedule(schedule), scale_by_learning_rate(rate).
#pragma once
#include "base.hpp"

namespace nax::optim {

namespace detail {
// A number in the element type of expression u (optax: a weakly typed Python float).
template <class U>
using value_t = typename nax::detail::expr_t<const std::remove_cvref_t<U>&>::value_type;
template <class U>
auto as_value(double c) {
  return static_cast<value_t<U>>(c);
}
}  // namespace detail

// optax.identity: updates unchanged, no state.
struct identity : stateless_transform<identity> {
  template <class U, class P>
  auto leaf(int, std::size_t, U&& u, const P&) const {
    return std::make_tuple(std::forward<U>(u));
  }
};

// optax.scale: step_size * u.
struct scale : stateless_transform<scale> {
  double step_size;
  explicit scale(double s) : step_size(s) {}
  template <class S, class P, class Up>
  double begin(const S&, const P&, const Up&) const {
    return step_size;
  }
  template <class U, class P>
  auto leaf(double s, std::size_t, U&& u, const P&) const {
    return std::make_tuple(detail::as_value<U>(s) * std::forward<U>(u));
  }
};

// optax.ScaleByScheduleState.
template <class C = Count>
struct ScaleByScheduleState {
  BOOST_HANA_DEFINE_STRUCT(ScaleByScheduleState, (C, count));
};

// optax.scale_by_schedule: schedule(count) * u, count incremented.
template <class Schedule>
struct scale_by_schedule : transform_base<scale_by_schedule<Schedule>> {
  static_assert(detail::require_scalar_or_schedule<Schedule>::value);
  Schedule schedule;
  explicit scale_by_schedule(Schedule s) : schedule(std::move(s)) {}
  static constexpr std::size_t moments = 0;
  template <class P>
  using state_shape = ScaleByScheduleState<>;
  template <class P>
  ScaleByScheduleState<> init(const P&) const {
    return {detail::make_count(0)};
  }
  template <std::size_t J, class S>
  static void moment(S&&);
  struct step_t {
    double step_size;
    std::int64_t next_count;
  };
  template <class S, class P, class Up>
  step_t begin(const S& state, const P&, const Up&) const {
    const std::int64_t count = detail::read_count(detail::child<0>(state));
    return {value_at(schedule, count), detail::safe_increment(count)};
  }
  template <class U, class P>
  auto leaf(const step_t& s, std::size_t, U&& u, const P&) const {
    return std::make_tuple(detail::as_value<U>(s.step_size) * std::forward<U>(u));
  }
  template <class S>
  auto finish(const step_t& s, S&&) const {
    return detail::make_state<ScaleByScheduleState, S>(detail::make_count(s.next_count));
  }
};

namespace detail {
template <class Schedule>
struct negated {
  Schedule schedule;
  double operator()(std::int64_t count) const { return -1 * value_at(schedule, count); }
};
}  // namespace detail

// optax.scale_by_learning_rate(rate): scale(-rate) for a number, scale_by_schedule(-rate(count))
// for a schedule.
template <class Rate>
auto scale_by_learning_rate(Rate rate) {
  static_assert(detail::require_scalar_or_schedule<Rate>::value);
  if constexpr (std::is_arithmetic_v<Rate>)
    return scale(-1 * static_cast<double>(rate));
  else
    return scale_by_schedule<detail::negated<Rate>>(detail::negated<Rate>{std::move(rate)});
}

}  // namespace nax::optim
