// optax.scale_by_rms and scale_by_stddev (optax 0.2.8, optax/_src/transform.py; eps_in_sqrt,
// no bias correction: rmsprop's defaults):
//   nu = (1 - decay) * u^2 + decay * nu;  update = rsqrt(nu + eps) * u
//   centered: mu = (1 - decay) * u + decay * mu;  update = rsqrt(nu - mu^2 + eps) * u
// nu starts at initial_scale, mu at 0.
#pragma once
#include "adam.hpp"

namespace nax::optim {

template <class Nu>
struct ScaleByRmsState {
  BOOST_HANA_DEFINE_STRUCT(ScaleByRmsState, (Nu, nu));
};
template <class Mu, class Nu = Mu>
struct ScaleByRStdDevState {
  BOOST_HANA_DEFINE_STRUCT(ScaleByRStdDevState, (Mu, mu), (Nu, nu));
};

struct scale_by_rms : transform_base<scale_by_rms> {
  double decay = 0.9, eps = 1e-8, initial_scale = 0.0;
  scale_by_rms() = default;
  explicit scale_by_rms(double d, double e = 1e-8, double s = 0.0) : decay(d), eps(e), initial_scale(s) {}

  static constexpr std::size_t moments = 1;
  template <class P>
  using state_shape = ScaleByRmsState<P>;
  template <class P>
  auto init(const P& params) const {
    auto nu = detail::full_like(params, initial_scale);
    return ScaleByRmsState<decltype(nu)>{std::move(nu)};
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
  auto leaf(int, std::size_t, U&& u, const P&, const M& nu) const {
    using T = detail::value_t<U>;
    auto nu2 = T(1 - decay) * nax::square(u) + T(decay) * nu;
    auto update = nax::rsqrt(nu2 + T(eps)) * u;
    return std::make_tuple(std::move(update), std::move(nu2));
  }
  template <class S, class Nu>
  auto finish(int, S&&, Nu&& nu) const {
    return detail::make_state<ScaleByRmsState, S>(std::forward<Nu>(nu));
  }
};

struct scale_by_stddev : transform_base<scale_by_stddev> {
  double decay = 0.9, eps = 1e-8, initial_scale = 0.0;
  scale_by_stddev() = default;
  explicit scale_by_stddev(double d, double e = 1e-8, double s = 0.0) : decay(d), eps(e), initial_scale(s) {}

  static constexpr std::size_t moments = 2;
  template <class P>
  using state_shape = ScaleByRStdDevState<P>;
  template <class P>
  auto init(const P& params) const {
    auto mu = detail::full_like(params, 0.0);
    auto nu = detail::full_like(params, initial_scale);
    return ScaleByRStdDevState<decltype(mu), decltype(nu)>{std::move(mu), std::move(nu)};
  }
  template <std::size_t J, class S>
  static decltype(auto) moment(S&& state) {
    return detail::child<J>(std::forward<S>(state));
  }
  template <class S, class P, class Up>
  int begin(const S&, const P&, const Up&) const {
    return 0;
  }
  template <class U, class P, class M, class V>
  auto leaf(int, std::size_t, U&& u, const P&, const M& mu, const V& nu) const {
    using T = detail::value_t<U>;
    auto mu2 = T(1 - decay) * u + T(decay) * mu;
    auto nu2 = T(1 - decay) * nax::square(u) + T(decay) * nu;
    auto update = nax::rsqrt(nu2 - nax::square(mu2) + T(eps)) * u;
    return std::make_tuple(std::move(update), std::move(mu2), std::move(nu2));
  }
  template <class S, class Mu, class Nu>
  auto finish(int, S&&, Mu&& mu, Nu&& nu) const {
    return detail::make_state<ScaleByRStdDevState, S>(std::forward<Mu>(mu), std::forward<Nu>(nu));
  }
};

}  // namespace nax::optim
