// nax::jacrev(f)(x) and nax::jacfwd(f)(x), as jax.jacrev / jax.jacfwd for small arguments: the
// Jacobian of f (one array in, one array out) as an Array with the output's axes, then the
// argument's. An argument axis whose name the output also has is named nax::wrt<A> in the
// Jacobian (f: x[i] -> y[i] gives J[i, wrt<i>]). jacrev is one vjp and one pullback per output
// element; jacfwd one jvp per argument element (f then is one expression, as for jvp).
#pragma once
#include <string>
#include <vector>

#include "jvp.hpp"
#include "vjp.hpp"

namespace nax {

// The Jacobian's name for an argument axis A that the output has too.
template <class A>
struct wrt : axis_tag {
  static constexpr const char* axis_label() { return A::axis_label(); }
};

namespace detail::ad {

template <class OutAxes, class ArgAxes>
struct jacobian_arg_axes;
template <class OutAxes, class... As>
struct jacobian_arg_axes<OutAxes, axes<As...>> {
  using type = axes<std::conditional_t<contains_v<As, OutAxes>, wrt<As>, As>...>;
};
template <class OutAxes, class ArgAxes>
using jacobian_arg_axes_t = typename jacobian_arg_axes<OutAxes, ArgAxes>::type;

template <class Output>
struct require_array_output {
  static_assert(is_array<Output>::value,
                "nax: jacrev/jacfwd: f must return one array (Output is what evaluating its result gives); for "
                "several outputs or inside a map, use vjp or jvp");
  static constexpr bool value = true;
};

// What evaluating f's result gives: an array for an expression, else the result's type.
template <class R, bool = array_like<R>>
struct evaluated {
  using type = std::remove_cvref_t<R>;
};
template <class R>
struct evaluated<R, true> {
  using type = std::remove_cvref_t<decltype(nax::eval(std::declval<const R&>()))>;
};
template <class R>
using evaluated_t = typename evaluated<R>::type;

// Every multi-index of extents, in row-major order, as offsets into views with strides.
template <std::size_t N, class Visit>
void for_each_index(const std::array<index_t, N>& extents, Visit&& visit) {
  for (index_t e : extents)
    if (e == 0) return;
  std::array<index_t, N> at{};
  for (;;) {
    visit(at);
    std::size_t k = N;
    while (k > 0) {
      --k;
      if (++at[k] < extents[k]) break;
      at[k] = 0;
      if (k == 0) return;
    }
    if constexpr (N == 0) return;
  }
}

template <class T, class Jac, std::size_t NOut, std::size_t NArg, class Part>
void write_rows(Jac& jac, const std::array<index_t, NOut>& out_at, const Part& part) {
  // jac[out_at, :] = part (row of the argument's axes, in the argument's order).
  auto view = jac.view();
  T* base = view.data();
  for (std::size_t k = 0; k != NOut; ++k) base += out_at[k] * view.strides()[k];
  std::array<index_t, NArg> ext{}, str{};
  for (std::size_t k = 0; k != NArg; ++k) ext[k] = view.extents()[NOut + k], str[k] = view.strides()[NOut + k];
  for_each_index(ext, [&](const std::array<index_t, NArg>& a) {
    index_t o = 0;
    for (std::size_t k = 0; k != NArg; ++k) o += a[k] * str[k];
    base[o] = part(a);
  });
}

template <bool Reverse, class F>
struct jacobian_of {
  F f;

  template <class T, class... As>
  auto operator()(const Array<T, As...>& x) const {
    if constexpr (!require_array_output<evaluated_t<decltype(f(x))>>::value) return;
    else return jacobian(x);
  }

 private:
  template <class T, class... As>
  auto jacobian(const Array<T, As...>& x) const {
    static_assert(require_floating_variable<T, Array<T, As...>>::value);
    using Y = evaluated_t<decltype(f(x))>;
    using OutAxes = typename Y::axes_type;
    using ArgAxes = jacobian_arg_axes_t<OutAxes, axes<As...>>;
    using J = array_for_t<typename Y::value_type, concat_t<OutAxes, ArgAxes>>;
    constexpr std::size_t no = OutAxes::size, na = sizeof...(As);
    if constexpr (Reverse) {
      // (not a structured binding: clang 16 cannot capture one in a file compiled with -fopenmp)
      auto y_and_pullback = nax::vjp(f)(x);
      auto& y = std::get<0>(y_and_pullback);
      auto& pullback = std::get<1>(y_and_pullback);
      std::array<index_t, no + na> ext{};
      for (std::size_t k = 0; k != no; ++k) ext[k] = y.extents()[k];
      for (std::size_t k = 0; k != na; ++k) ext[no + k] = x.extents()[k];
      J jac(ext);
      Y e = y;  // the one-hot cotangents
      for_each_index(y.extents(), [&](const std::array<index_t, no>& at) {
        std::fill(e.data(), e.data() + e.size(), typename Y::value_type(0));
        index_t flat = 0;
        for (std::size_t k = 0; k != no; ++k) flat += at[k] * e.view().strides()[k];
        e.data()[flat] = 1;
        auto [g] = pullback(e);
        auto gv = std::as_const(g).view();
        write_rows<typename Y::value_type, J, no, na>(jac, at, [&](const std::array<index_t, na>& a) {
          index_t o = 0;
          for (std::size_t k = 0; k != na; ++k) o += a[k] * gv.strides()[k];
          return gv.data()[o];
        });
      });
      return jac;
    } else {
      Array<T, As...> t(x.extents());
      Y y0 = f(x);
      std::array<index_t, no + na> ext{};
      for (std::size_t k = 0; k != no; ++k) ext[k] = y0.extents()[k];
      for (std::size_t k = 0; k != na; ++k) ext[no + k] = x.extents()[k];
      J jac(ext);
      auto jv = jac.view();
      for_each_index(x.extents(), [&](const std::array<index_t, na>& at) {
        index_t flat = 0;
        for (std::size_t k = 0; k != na; ++k) flat += at[k] * t.view().strides()[k];
        std::fill(t.data(), t.data() + t.size(), T(0));
        t.data()[flat] = 1;
        auto [y, ty] = nax::jvp(f, nax::tuple(x), nax::tuple(t));
        auto tv = std::as_const(ty).view();
        // jac[:, at] = ty
        for_each_index(tv.extents(), [&](const std::array<index_t, no>& o) {
          index_t src = 0, dst = 0;
          for (std::size_t k = 0; k != no; ++k) src += o[k] * tv.strides()[k], dst += o[k] * jv.strides()[k];
          for (std::size_t k = 0; k != na; ++k) dst += at[k] * jv.strides()[no + k];
          jv.data()[dst] = tv.data()[src];
        });
      });
      return jac;
    }
  }
};

}  // namespace detail::ad

template <class F>
auto jacrev(F f) {
  return detail::ad::jacobian_of<true, F>{std::move(f)};
}
template <class F>
auto jacfwd(F f) {
  return detail::ad::jacobian_of<false, F>{std::move(f)};
}

}  // namespace nax
