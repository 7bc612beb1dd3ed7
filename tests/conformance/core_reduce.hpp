// The programs of family `core`'s reductions: sum, prod, max, min, mean, logsumexp, argmax,
// argmin over axis a, axis b or both, of float32, float64, int32 and bool (sum) arrays,
// including ties and NaN (the mean of int32 is float32, as in JAX). Over a backend B
// (backend.hpp): core_reduce_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on
// the CUDA backend.
#pragma once
#include "backend.hpp"

namespace conf_reduce {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;

// op over the axes Rs... of x (none = all)
template <class B, class T, class... Rs, class X>
std::string reduce(const Case& c, const X& x) {
  auto cmp = [&](const auto& e) { return conf::check<B>(c, e); };
  const std::string& op = c.op;
  if (op == "sum") return cmp(nax::sum<Rs...>(x));
  if constexpr (!std::is_same_v<T, bool>) {
    if (op == "prod") return cmp(nax::prod<Rs...>(x));
    if (op == "max") return cmp(nax::max<Rs...>(x));
    if (op == "min") return cmp(nax::min<Rs...>(x));
    if (op == "mean") return cmp(nax::mean<Rs...>(x));
    if constexpr (std::is_floating_point_v<T>)
      if (op == "logsumexp") return cmp(nax::logsumexp<Rs...>(x));
    if constexpr (sizeof...(Rs) == 1) {
      if (op == "argmax") return cmp(nax::argmax<Rs...>(x));
      if (op == "argmin") return cmp(nax::argmin<Rs...>(x));
    }
  }
  return "unknown op for " + c.dtype();
}

template <class B, class T>
std::string run_typed(const Case& c) {
  const auto x = B::template input<T, a, b>(c.in[0]);
  const std::string& axis = c.param("axis");
  if (axis == "a") return reduce<B, T, a>(c, x);
  if (axis == "b") return reduce<B, T, b>(c, x);
  if (axis == "all") return reduce<B, T>(c, x);
  return "unknown axis " + axis;
}

template <class B>
std::string run(const Case& c) {
  if (!c.has("axis")) return conf::skip();
  return conf::by_dtype<B, float, double, std::int32_t, bool>(c.dtype(),
                                                              [&](auto t) { return run_typed<B, decltype(t)>(c); });
}

}  // namespace conf_reduce
