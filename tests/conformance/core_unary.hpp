// The programs of family `core`'s unary elementwise ops (neg, abs, square, relu, exp, log,
// log1p, expm1, sqrt, rsqrt, sin, cos, tanh, erf, sigmoid, log_sigmoid) on 2-D arrays (axes a,
// b) of float32 and float64, and those meaningful for int32 (a transcendental of int32 is
// float32, as in JAX); over a backend B (backend.hpp): core_unary_test.cpp runs them on the
// host, tests/cuda/test_conformance_*.cu on the CUDA backend.
#pragma once
#include "backend.hpp"

#include <set>

namespace conf_unary {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;

template <class B, class T>
std::string unary(const Case& c) {
  const auto x = B::template input<T, a, b>(c.in[0]);
  auto cmp = [&](const auto& e) { return conf::check<B>(c, e); };
  const std::string& op = c.op;
  if (op == "neg") return cmp(-x);
  if (op == "abs") return cmp(nax::abs(x));
  if (op == "square") return cmp(nax::square(x));
  if (op == "relu") return cmp(nax::relu(x));
  if (op == "exp") return cmp(nax::exp(x));
  if (op == "sqrt") return cmp(nax::sqrt(x));
  if (op == "sin") return cmp(nax::sin(x));
  if (op == "tanh") return cmp(nax::tanh(x));
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "log") return cmp(nax::log(x));
    if (op == "log1p") return cmp(nax::log1p(x));
    if (op == "expm1") return cmp(nax::expm1(x));
    if (op == "rsqrt") return cmp(nax::rsqrt(x));
    if (op == "cos") return cmp(nax::cos(x));
    if (op == "erf") return cmp(nax::erf(x));
    if (op == "sigmoid") return cmp(nax::sigmoid(x));
    if (op == "log_sigmoid") return cmp(nax::log_sigmoid(x));
  }
  return "unknown op for " + c.dtype();
}

template <class B>
std::string run(const Case& c) {
  static const std::set<std::string> unary_ops = {"neg", "abs", "square", "relu", "exp", "log", "log1p", "expm1",
                                                  "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "sigmoid",
                                                  "log_sigmoid"};
  if (!unary_ops.count(c.op)) return conf::skip();
  return conf::by_dtype<B, float, double, std::int32_t>(c.dtype(), [&](auto t) { return unary<B, decltype(t)>(c); });
}

}  // namespace conf_unary
