// pack<Ts...>: the children of an expression node or evaluator, stored flat.
// std::tuple nests one base class per element and std::apply goes through __apply_impl,
// __invoke and __invoke_impl: five instantiated functions per call site and node type, which
// at -O0 and in nvcc's device pass are all emitted (docs/compile_time.md measures it). A pack
// is one level of bases and apply is one function. Its functions are constexpr and not
// __host__ __device__, as std::apply's: under --expt-relaxed-constexpr (the nax target sets it)
// device code may call them, and host code may pass them host-only callables without a warning.
#pragma once
#include <cstddef>
#include <utility>

namespace nax::detail {

template <std::size_t I, class T>
struct pack_slot {
  T value;
};

// An aggregate, without constructors: at -O0 a constructor is one more emitted function per
// node type, and so is each level of bases (its implicit copy, move and destructor), so the
// slots are the only bases. Built with braces per slot: pack<A, B>{{a}, {b}}.
template <class Is, class... Ts>
struct pack_impl;

template <std::size_t... Is, class... Ts>
struct pack_impl<std::index_sequence<Is...>, Ts...> : pack_slot<Is, Ts>... {
  static constexpr std::size_t size = sizeof...(Ts);
  // f(children...), left to right.
  template <class F>
  constexpr decltype(auto) apply(F&& f) const {
    return static_cast<F&&>(f)(static_cast<const pack_slot<Is, Ts>&>(*this).value...);
  }
  template <class F>
  constexpr decltype(auto) apply(F&& f) {
    return static_cast<F&&>(f)(static_cast<pack_slot<Is, Ts>&>(*this).value...);
  }
};

template <class... Ts>
using pack = pack_impl<std::index_sequence_for<Ts...>, Ts...>;

// The I-th child (the slot's type is deduced from the base class).
template <std::size_t I, class T>
constexpr const T& get(const pack_slot<I, T>& s) {
  return s.value;
}
template <std::size_t I, class T>
constexpr T& get(pack_slot<I, T>& s) {
  return s.value;
}

}  // namespace nax::detail
