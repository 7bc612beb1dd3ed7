// optax.scale_by_adam (optax 0.2.8, optax/_src/transform.py; not its nesterov or mu_dtype options):
//   mu = (1 - b1) * u + b1 * mu,  nu = (1 - b2) * u^2 + b2 * nu,  count += 1,
//   update = (mu / (1 - b1^count)) / (sqrt(nu / (1 - b2^count) + eps_root) + eps),
// the bias corrections computed in double and rounded to the leaf's type (optax under x64).
#pragma once
#include <cmath>

#include "scale.hpp"

namespace nax::optim {

// optax.ScaleByAdamState: the step count and the two moments, trees shaped as the parameters.
template <class C, class Mu, class Nu = Mu>
struct ScaleByAdamState {
  BOOST_HANA_DEFINE_STRUCT(ScaleByAdamState, (C, count), (Mu, mu), (Nu, nu));
};

namespace detail {
// optax.tree.zeros_like / full_like: an owning array like each leaf (its memory space, axes and
// element type), filled with value.
template <class P>
auto full_like(const P& params, double value) {
  return nax::tree_map(
      [value](const auto& leaf) {
        using E = nax::detail::expr_t<decltype(leaf)>;
        static_assert(nax::detail::hidden_t<E>::size == 0,
                      "nax: optim: init needs the parameters themselves: call it outside vmap/xmap (the "
                      "state is made once for the whole tree; a mapped step then reads it)");
        using A = typename nax::detail::eval_array<E>::type;
        using T = typename A::value_type;
        A out(nax::detail::extents_by_name<typename A::axes_type>(nax::detail::as_expr(leaf)));  // zeros
        if (value != 0) out = out + static_cast<T>(value);
        return out;
      },
      params);
}
}  // namespace detail

struct scale_by_adam : transform_base<scale_by_adam> {
  double b1 = 0.9, b2 = 0.999, eps = 1e-8, eps_root = 0.0;
  scale_by_adam() = default;
  scale_by_adam(double b1_, double b2_ = 0.999, double eps_ = 1e-8, double eps_root_ = 0.0)
      : b1(b1_), b2(b2_), eps(eps_), eps_root(eps_root_) {}

  static constexpr std::size_t moments = 2;
  template <class P>
  using state_shape = ScaleByAdamState<Count, P>;
  template <class P>
  auto init(const P& params) const {
    auto zeros = detail::full_like(params, 0.0);
    return ScaleByAdamState<Count, decltype(zeros)>{detail::make_count(0), zeros, zeros};
  }
  template <std::size_t J, class S>
  static decltype(auto) moment(S&& state) {
    return detail::child<1 + J>(std::forward<S>(state));
  }
  struct step_t {
    double bias1, bias2;  // 1 - b^count
    std::int64_t count;
  };
  template <class S, class P, class Up>
  step_t begin(const S& state, const P&, const Up&) const {
    const std::int64_t count = detail::safe_increment(detail::read_count(detail::child<0>(state)));
    return {1 - std::pow(b1, static_cast<double>(count)), 1 - std::pow(b2, static_cast<double>(count)), count};
  }
  template <class U, class P, class M, class V>
  auto leaf(const step_t& s, std::size_t, U&& u, const P&, const M& mu, const V& nu) const {
    using T = detail::value_t<U>;
    auto mu2 = T(1 - b1) * u + T(b1) * mu;
    auto nu2 = T(1 - b2) * nax::square(u) + T(b2) * nu;
    auto update = (mu2 / T(s.bias1)) / (nax::sqrt(nu2 / T(s.bias2) + T(eps_root)) + T(eps));
    return std::make_tuple(std::move(update), std::move(mu2), std::move(nu2));
  }
  template <class S, class Mu, class Nu>
  auto finish(const step_t& s, S&&, Mu&& mu, Nu&& nu) const {
    return detail::make_state<ScaleByAdamState, S>(detail::make_count(s.count), std::forward<Mu>(mu),
                                                   std::forward<Nu>(nu));
  }
};

}  // namespace nax::optim
