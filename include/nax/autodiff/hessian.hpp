// nax::hessian(f)(x), as jax.hessian for small arguments: the matrix of second derivatives of a
// scalar f of one array, as an Array with x's axes, then x's axes again named nax::wrt<A>
// (f of x[in] gives H[in, wrt<in>], H(i, j) = d2f / dx_i dx_j). Row i is the gradient of
// <grad f, e_i>, a Hessian-vector product: grad(grad(f))'s second pass (grad.hpp) seeded with
// the one-hot e_i instead of 1, so one forward and two backward passes per element of x (JAX
// vmaps its products; a loop here). f is one expression of x, as for grad(grad(f)): an
// evaluation inside f that depends on x raises.
#pragma once
#include "grad.hpp"
#include "jacobian.hpp"

namespace nax {
namespace detail::ad {

inline constexpr const char* hessian_refusal =
    "nax: hessian: f evaluates an intermediate that depends on its argument; second derivatives through "
    "evaluations are not supported yet: write f as one expression";

template <class F>
struct hessian_of {
  F f;

  template <class T, class... As>
  auto operator()(const Array<T, As...>& x) const {
    static_assert(require_floating_variable<T, Array<T, As...>>::value);
    using H = Array<T, As..., wrt<As>...>;
    constexpr std::size_t n = sizeof...(As);
    // f runs once, under a tape that only guards (raw reads, evaluations).
    tape record(false, hessian_refusal);
    record.set_name("hessian");
    std::vector<std::size_t> tracked;
    auto out = [&] {
      tape_scope scope(record);
      track_arguments(record, x, tracked);
      return as_expr(f(x));
    }();
    record.finish_forward(out);
    tape_pause pause;
    using Out = decltype(out);
    static_assert(require_scalar_output<typename Out::axes_type>::value);
    static_assert(require_floating_output<typename Out::value_type>::value);
    using Space = space_of_t<Out>;
    using U = typename Out::value_type;

    std::array<index_t, 2 * n> ext{};
    for (std::size_t k = 0; k != n; ++k) ext[k] = ext[n + k] = x.extents()[k];
    H hess(ext);
    Array<T, As...> direction(x.extents());  // e_i
    const auto dv = direction.view();
    for_each_index(x.extents(), [&](const std::array<index_t, n>& at) {
      index_t flat = 0;
      for (std::size_t k = 0; k != n; ++k) flat += at[k] * dv.strides()[k];
      dv.data()[flat] = T(1);
      auto outer = variables_of<axes<>, Space>(x, out);
      state<Space, axes<>, decltype(outer)> outer_st{Space::make_context(), std::move(outer)};
      const auto seed = leaf_of(std::as_const(direction).view());
      // Each cotangent reaching a use of x (their sum is grad f) is differentiated again, as
      // <ct, e_i>, into x's second gradient: row i of H.
      auto second = [&](const auto& ct) { backprop(ct, seed, outer_st); };
      auto inner = variables_of<axes<>, Space>(x, out);
      state<Space, axes<>, decltype(inner), decltype(second)> inner_st{Space::make_context(), std::move(inner), second};
      Space::materialise(out, inner_st.ctx);
      backprop(out, Scalar<U>{{}, U(1)}, inner_st);
      const auto row = std::as_const(*std::get<0>(outer_st.vars).grad).view();
      write_rows<T, H, n, n>(hess, at, [&](const std::array<index_t, n>& j) {
        index_t o = 0;
        for (std::size_t k = 0; k != n; ++k) o += j[k] * row.strides()[k];
        return row.data()[o];
      });
      dv.data()[flat] = T(0);
    });
    return hess;
  }
};

}  // namespace detail::ad

// hessian(f)(x): the Hessian of f (one array in, a rank-0 floating value out); see above.
template <class F>
auto hessian(F f) {
  return detail::ad::hessian_of<F>{std::move(f)};
}

}  // namespace nax
