// The backend a conformance program runs on. The programs of the families that the CUDA backend
// can run (core_*.hpp, random.hpp, relayout.hpp) are written once, templated on a backend B:
//   B::input<T, As...>(npy)   a case's input with axes As... (a host nax::Array, or a device array)
//   B::eval(e)                e evaluated, staying on the backend (an input of later expressions)
//   B::result(e)              e evaluated, as a host nax::Array with e's axes (for conf::compare)
//   B::result_as<T, As...>(e) the same, assigned to an array with axes As... (by name)
//   B::device                 true on the CUDA backend: the programs skip, with the reason,
//                             the ops docs/cuda.md lists as not on the device
//   B::instantiates<T>()      whether the programs are compiled for element type T (else
//                             conf::by_dtype skips with B::not_instantiated(dtype))
// This file: the host backend (what the test_conformance files use). The CUDA backend is in
// tests/cuda/test_conformance_*.cu.
#pragma once
#include "conformance.hpp"

namespace conf {

struct host_backend {
  static constexpr bool device = false;
  template <class T>
  static constexpr bool instantiates() {
    return true;
  }
  // Never called (instantiates() is true); clang still checks the call in a discarded branch.
  static std::string not_instantiated(const std::string& dtype) {
    return "the host backend instantiates " + dtype;
  }

  template <class T, class... As>
  static nax::Array<T, As...> input(const npy::Array& a) {
    return to_array<T, As...>(a);
  }
  template <class E>
  static auto eval(const E& e) {
    return nax::eval(e);
  }
  template <class E>
  static auto result(const E& e) {
    return nax::eval(e);
  }
  template <class T, class... As, class E>
  static nax::Array<T, As...> result_as(const E& e) {
    return e;
  }
};

// JAX's first output of case c against B's result of e (tolerances: conf::compare).
template <class B, class E>
std::string check(const Case& c, const E& e, double rtol = -1, bool exact_bits = false) {
  return compare(c.out[0], B::result(e), rtol, exact_bits);
}

// The same, the result assigned to an array with axes As... first (the einsum output's order).
template <class B, class T, class... As, class E>
std::string check_as(const Case& c, const E& e) {
  return compare(c.out[0], B::template result_as<T, As...>(e));
}

}  // namespace conf
