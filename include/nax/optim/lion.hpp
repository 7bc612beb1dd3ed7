// optax.scale_by_lion (optax 0.2.8, optax/_src/transform.py, mode 'hard'):
//   update = sign((1 - b1) * u + b1 * mu),  mu = (1 - b2) * u + b2 * mu,  count += 1.
// Lion (Chen et al. 2023) is this library's second adaptive optimizer (rather than adafactor):
// one moment instead of adam's two, the same update magnitude for every element, and it is
// what several recent language models train with; adafactor's factored second moment needs
// row and column reductions per leaf and per-leaf shape rules, which lion does not.
#pragma once
#include "adam.hpp"

namespace nax::optim {

template <class C, class Mu>
struct ScaleByLionState {
  BOOST_HANA_DEFINE_STRUCT(ScaleByLionState, (C, count), (Mu, mu));
};

struct scale_by_lion : transform_base<scale_by_lion> {
  double b1 = 0.9, b2 = 0.99;
  scale_by_lion() = default;
  explicit scale_by_lion(double b1_, double b2_ = 0.99) : b1(b1_), b2(b2_) {}

  static constexpr std::size_t moments = 1;
  template <class P>
  using state_shape = ScaleByLionState<Count, P>;
  template <class P>
  auto init(const P& params) const {
    auto zeros = detail::full_like(params, 0.0);
    return ScaleByLionState<Count, decltype(zeros)>{detail::make_count(0), std::move(zeros)};
  }
  template <std::size_t J, class S>
  static decltype(auto) moment(S&& state) {
    return detail::child<1>(std::forward<S>(state));
  }
  template <class S, class P, class Up>
  std::int64_t begin(const S& state, const P&, const Up&) const {
    return detail::safe_increment(detail::read_count(detail::child<0>(state)));
  }
  template <class U, class P, class M>
  auto leaf(std::int64_t, std::size_t, U&& u, const P&, const M& mu) const {
    using T = detail::value_t<U>;
    auto update = nax::sign(T(1 - b1) * u + T(b1) * mu);
    auto mu2 = T(1 - b2) * u + T(b2) * mu;
    return std::make_tuple(std::move(update), std::move(mu2));
  }
  template <class S, class Mu>
  auto finish(std::int64_t count, S&&, Mu&& mu) const {
    return detail::make_state<ScaleByLionState, S>(detail::make_count(count), std::forward<Mu>(mu));
  }
};

}  // namespace nax::optim
