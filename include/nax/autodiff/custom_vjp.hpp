// nax::custom_vjp(fwd, bwd): a function whose backward pass the user writes, as
// jax.custom_vjp with defvjp(fwd, bwd): fwd(args...) returns std::pair(output, residuals);
// bwd(residuals, ct) returns the arguments' cotangents (a std::tuple, one per argument; a single
// cotangent for a function of one argument). Its value is fwd's output, evaluated (so the
// value can never disagree with what the backward pass assumes; outside grad the residuals are
// computed and dropped). Inside grad, when an argument depends on a differentiated argument,
// the call is one tape entry (tape.hpp): fwd runs unrecorded (its own evaluations and raw
// reads are its business), its residuals are kept (evaluated), and the entry's backward calls
// bwd and sends each cotangent into its argument as any rule would.
#pragma once
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "record.hpp"

namespace nax {
namespace detail::ad {

template <class ArgAxes, class CotangentAxes>
struct require_custom_cotangent_axes {
  static_assert(same_set_v<ArgAxes, CotangentAxes>,
                "nax: custom_vjp: bwd returns a cotangent with axes (CotangentAxes) other than its argument's "
                "(ArgAxes); return one cotangent per argument of the function, with that argument's axis names "
                "(in any order)");
  static constexpr bool value = true;
};
template <std::size_t Returned, std::size_t Arguments>
struct require_custom_cotangent_count {
  static_assert(Returned == Arguments,
                "nax: custom_vjp: bwd returns another number of cotangents (Returned) than the function has "
                "arguments (Arguments); return a std::tuple (nax::tuple) with one cotangent per argument");
  static constexpr bool value = true;
};

template <class R>
auto as_cotangent_tuple(R&& r) {
  if constexpr (is_std_tuple<std::remove_cvref_t<R>>::value) return std::forward<R>(r);
  else return std::tuple<std::remove_cvref_t<R>>(std::forward<R>(r));
}

// An argument as an entry keeps it: a number, or an expression (a view of the argument's
// storage, which the entry pins).
template <class A>
auto kept_argument(const A& a) {
  if constexpr (element<A>) return a;
  else return as_expr(a);
}

// The cotangent `given` of argument number k (from 0), sent back through the argument's
// expression: the tape adds it where that expression reads tracked buffers.
template <class A, class C, class St>
void send_to_argument(const A& arg, const C& given, std::size_t k, const char* who, St& st) {
  if constexpr (!element<A>) {
    using T = typename A::value_type;
    if constexpr (std::is_floating_point_v<T>) {
      auto c = as_expr(given);
      static_assert(require_custom_cotangent_axes<visible_t<A>, visible_t<decltype(c)>>::value);
      [&]<class... As>(axes<As...>) {
        [[maybe_unused]] auto check = [&]<class X>(std::type_identity<X>) {
          if (extent_of<X>(c) != extent_of<X>(arg))
            throw shape_error(std::string("nax: ") + who + ": the cotangent of argument " + std::to_string(k + 1) +
                              " has extent " + std::to_string(extent_of<X>(c)) + " along '" +
                              std::string(axis_name<X>()) + "', the argument has " + std::to_string(extent_of<X>(arg)));
        };
        (check(std::type_identity<As>{}), ...);
      }(visible_t<A>{});
      backprop(arg, make_map<fn::cast_to<T>>(std::move(c)), st);
    }
  }
}

// The entry's output cotangent, as the function's output looked (its mapped axes hidden).
// The cotangent of an entry's output (its array, or one member's slot of it), with the
// output's mapped axes hidden as the output has them.
template <class Axes, class Hidden, class View>
auto output_cotangent_of(const View& view) {
  auto leaf = leaf_of(view);
  return positional_relayout<identity_kind, Axes, decltype(leaf), Hidden>(std::move(leaf));
}
template <class T, class Axes, class Hidden>
auto output_cotangent(const std::shared_ptr<void>& cotangent) {
  return output_cotangent_of<Axes, Hidden>(static_cast<const host_space::array<T, Axes>*>(cotangent.get())->view());
}
template <class T, class Axes, class Hidden>
auto output_cotangent(cotangent_slot cotangent) {
  return output_cotangent_of<Axes, Hidden>(slot_view<T, Axes>(cotangent));
}

// An entry whose backward pass takes its output's cotangent as an expression (custom_vjp,
// checkpoint): the whole cotangent, or one member's slot of it. Derived::run does the rest.
template <class Derived, class T, class Axes, class Hidden>
struct cotangent_entry : entry_base {
  void backward(tape& record, const std::shared_ptr<void>& cotangent, bool) override {
    static_cast<Derived&>(*this).run(record, output_cotangent<T, Axes, Hidden>(cotangent));
  }
  void backward_member(tape& record, cotangent_slot cotangent, bool) override {
    static_cast<Derived&>(*this).run(record, output_cotangent<T, Axes, Hidden>(cotangent));
  }
};

template <class Residuals, class Bwd, class Args, class T, class Axes, class Hidden>
struct custom_entry final : cotangent_entry<custom_entry<Residuals, Bwd, Args, T, Axes, Hidden>, T, Axes, Hidden> {
  Residuals residuals;
  Bwd bwd;
  Args args;
  custom_entry(Residuals r, Bwd b, Args a) : residuals(std::move(r)), bwd(std::move(b)), args(std::move(a)) {}

  template <class Ct>
  void run(tape& record, const Ct& ct) {
    auto returned = as_cotangent_tuple(bwd(std::as_const(residuals), ct));
    static_assert(require_custom_cotangent_count<std::tuple_size_v<decltype(returned)>, std::tuple_size_v<Args>>::value);
    state<host_space, Axes, std::tuple<>> st{host_space::make_context(), {}};
    st.record = &record;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (send_to_argument(std::get<K>(args), std::get<K>(returned), K, "custom_vjp", st), ...);
    }(std::make_index_sequence<std::tuple_size_v<Args>>{});
  }
};

// Does any argument depend on what the active tape tracks?
template <class... Args>
bool any_depends(const tape_interface& t, const Args&... args) {
  auto one = [&](const auto& a) {
    if constexpr (element<std::remove_cvref_t<decltype(a)>>) return false;
    else return depends_on_tape(as_expr(a), t);
  };
  return (one(args) || ... || false);
}

// The storage of an evaluated value (an Array, or an evaluated mapped value's leaf).
template <class V>
auto storage_view(const V& v) {
  if constexpr (is_array<V>::value) return v.view();
  else return v.child.view;
}

// Residuals kept by an entry: what fwd returned, with every lazy expression evaluated (it may
// view fwd's locals).
template <class R>
auto keep_residuals(R&& r) {
  return tree_transform_leaves(std::forward<R>(r), [](auto&& leaf) {
    using L = std::remove_cvref_t<decltype(leaf)>;
    if constexpr (expression<L>) return nax::eval(leaf);
    else return L(std::forward<decltype(leaf)>(leaf));
  });
}

template <class Fwd, class Bwd>
struct custom_vjp_function {
  Fwd fwd;
  Bwd bwd;

  template <class... Args>
  auto operator()(const Args&... args) const {
    tape_interface* active = active_tape;
    if (!active || !any_depends(*active, args...)) [[likely]] {
      auto result = fwd(args...);
      return nax::eval(std::get<0>(std::move(result)));
    }
    tape& record = current_tape();
    record.check_recording();
    (record.check_enclosing(as_expr(args)), ...);
    tape_pause pause;  // fwd, its value and its residuals are not recorded
    auto result = fwd(args...);
    auto out = as_expr(std::get<0>(std::move(result)));
    using E = decltype(out);
    using T = typename E::value_type;
    auto value = nax::eval(out);
    if constexpr (std::is_floating_point_v<T>) {
      auto residuals = keep_residuals(std::get<1>(std::move(result)));
      auto kept = std::make_tuple(kept_argument(args)...);
      auto entry = std::make_unique<custom_entry<decltype(residuals), Bwd, decltype(kept), T, typename E::axes_type,
                                                 hidden_t<E>>>(std::move(residuals), bwd, kept);
      record.add_entry(std::move(entry), storage_view(value), as_expr(args)...);  // (pins what the arguments view)
    }
    return value;
  }
};

}  // namespace detail::ad

// custom_vjp(fwd, bwd): see the top of this file.
template <class Fwd, class Bwd>
auto custom_vjp(Fwd fwd, Bwd bwd) {
  return detail::ad::custom_vjp_function<Fwd, Bwd>{std::move(fwd), std::move(bwd)};
}

}  // namespace nax
