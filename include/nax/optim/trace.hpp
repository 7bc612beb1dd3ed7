// optax.trace (optax 0.2.8, optax/transforms/_accumulation.py): momentum.
//   trace = u + decay * trace;  update = nesterov ? u + decay * trace : trace.
#pragma once
#include "adam.hpp"

namespace nax::optim {

template <class Tr>
struct TraceState {
  BOOST_HANA_DEFINE_STRUCT(TraceState, (Tr, trace));
};

struct trace : transform_base<trace> {
  double decay;
  bool nesterov = false;
  explicit trace(double d, bool n = false) : decay(d), nesterov(n) {}

  static constexpr std::size_t moments = 1;
  template <class P>
  using state_shape = TraceState<P>;
  template <class P>
  auto init(const P& params) const {
    auto zeros = detail::full_like(params, 0.0);
    return TraceState<decltype(zeros)>{std::move(zeros)};
  }
  template <std::size_t J, class S>
  static decltype(auto) moment(S&& state) {
    return detail::child<0>(std::forward<S>(state));
  }
  template <class S, class P, class Up>
  int begin(const S&, const P&, const Up&) const {
    return 0;
  }
  template <class U, class P, class M>
  auto leaf(int, std::size_t, U&& u, const P&, const M& t) const {
    using T = detail::value_t<U>;
    auto t2 = u + T(decay) * t;
    auto update = nax::where(nesterov, u + T(decay) * t2, t2);  // exactly one of the two
    return std::make_tuple(std::move(update), std::move(t2));
  }
  template <class S, class Tr>
  auto finish(int, S&&, Tr&& t) const {
    return detail::make_state<TraceState, S>(std::forward<Tr>(t));
  }
};

}  // namespace nax::optim
