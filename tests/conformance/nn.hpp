// The programs of family `nn` (data/nn/): the elementwise ops added for models and the jax.nn /
// optax functions over an axis, each case's value and the gradient of sum(w * f(x)) (for
// binary ops w.r.t. both operands), float32 and float64; layer_norm and rms_norm as flax
// computes them (w.r.t. x, scale and bias); fmod, remainder, sign and rounding of int32 (values). Over a backend B (backend.hpp): nn_test.cpp runs them on the host,
// tests/cuda/test_conformance_*.cu on the CUDA backend.
#pragma once
#include "backend.hpp"

namespace conf_nn {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;

// Outputs 0, 1, ... against B's results.
template <class B, class... E>
std::string compare_outputs(const Case& c, double rtol, const E&... got) {
  std::string e;
  std::size_t k = 0;
  auto one = [&](const auto& g) {
    if (e.empty()) {
      e = conf::compare(c.out.at(k), B::result(g), rtol);
      if (!e.empty()) e = "output " + std::to_string(k) + ": " + e;
    }
    ++k;
  };
  (one(got), ...);
  return e;
}

// f's value and the gradient of sum(w * f(x)), x and w inputs 0 and 1 (w over Wx...).
template <class B, class T, class... Wx, class F>
std::string value_and_grad_of(const Case& c, F f, double rtol = -1) {
  const auto x = B::template input<T, a, b>(c.in[0]);
  const auto w = B::template input<T, Wx...>(c.in[1]);
  auto g = nax::grad([&](const auto& v) { return nax::sum(w * f(v)); })(x);
  return compare_outputs<B>(c, rtol, f(x), g);
}

template <class B, class T>
std::string unary(const Case& c) {
  const std::string& op = c.op;
  auto run = [&](auto f) { return value_and_grad_of<B, T, a, b>(c, f); };
  if (op == "tan") return run([](const auto& x) { return nax::tan(x); });
  if (op == "arcsin") return run([](const auto& x) { return nax::arcsin(x); });
  if (op == "arccos") return run([](const auto& x) { return nax::arccos(x); });
  if (op == "arctan") return run([](const auto& x) { return nax::arctan(x); });
  if (op == "sinh") return run([](const auto& x) { return nax::sinh(x); });
  if (op == "cosh") return run([](const auto& x) { return nax::cosh(x); });
  if (op == "arcsinh") return run([](const auto& x) { return nax::arcsinh(x); });
  if (op == "arccosh") return run([](const auto& x) { return nax::arccosh(x); });
  if (op == "arctanh") return run([](const auto& x) { return nax::arctanh(x); });
  if (op == "softplus") return run([](const auto& x) { return nax::softplus(x); });
  if (op == "silu") return run([](const auto& x) { return nax::silu(x); });
  if (op == "gelu") return run([](const auto& x) { return nax::gelu(x); });
  if (op == "gelu_exact") return run([](const auto& x) { return nax::gelu<false>(x); });
  if (op == "relu6") return run([](const auto& x) { return nax::relu6(x); });
  if (op == "floor") return run([](const auto& x) { return nax::floor(x); });
  if (op == "ceil") return run([](const auto& x) { return nax::ceil(x); });
  if (op == "round") return run([](const auto& x) { return nax::round(x); });
  if (op == "trunc") return run([](const auto& x) { return nax::trunc(x); });
  if (op == "sign") return run([](const auto& x) { return nax::sign(x); });
  if (op == "leaky_relu") return run([](const auto& x) { return nax::leaky_relu(x, 0.2); });
  if (op == "elu") return run([](const auto& x) { return nax::elu(x, 1.5); });
  if (op == "softmax") return run([](const auto& x) { return nax::softmax<b>(x); });
  if (op == "log_softmax") return run([](const auto& x) { return nax::log_softmax<b>(x); });
  // jax.nn.standardize's variance, mean(x^2) - mean(x)^2, cancels; in float32 both JAX's and
  // nax's gradients are within 2e-5 of the float64 one (measured: -0.0762348 nax, -0.0762332
  // JAX, -0.0762335 in float64), so the float32 case is compared at 3e-5.
  if (op == "standardize")
    return value_and_grad_of<B, T, a, b>(c, [](const auto& x) { return nax::standardize<b>(x, 1e-3); },
                                         std::is_same_v<T, float> ? 3e-5 : -1);
  auto per_row = [&](auto f) { return value_and_grad_of<B, T, a>(c, f); };
  if (op == "var") return per_row([](const auto& x) { return nax::var<b>(x); });
  if (op == "var_ddof1") return per_row([](const auto& x) { return nax::var<b>(x, 1); });
  if (op == "std") return per_row([](const auto& x) { return nax::std<b>(x); });
  return "unknown op " + op;
}

// Cases with a second operand (input 1) and w as input 2.
template <class B, class T>
std::string with_operand(const Case& c) {
  const auto x = B::template input<T, a, b>(c.in[0]);
  const auto y = B::template input<T, a, b>(c.in[1]);
  const std::string& op = c.op;
  if (op == "softmax_cross_entropy" || op == "sigmoid_binary_cross_entropy") {
    if (op == "softmax_cross_entropy") {
      const auto w = B::template input<T, a>(c.in[2]);
      auto f = [&](const auto& l) { return nax::softmax_cross_entropy<b>(l, y); };
      auto g = nax::grad([&](const auto& l) { return nax::sum(w * f(l)); })(x);
      return compare_outputs<B>(c, -1, f(x), g);
    }
    const auto w = B::template input<T, a, b>(c.in[2]);
    auto f = [&](const auto& l) { return nax::sigmoid_binary_cross_entropy(l, y); };
    auto g = nax::grad([&](const auto& l) { return nax::sum(w * f(l)); })(x);
    return compare_outputs<B>(c, -1, f(x), g);
  }
  const auto w = B::template input<T, a, b>(c.in[2]);
  auto both = [&](auto f) {
    auto [gx, gy] = nax::grad<0, 1>([&](const auto& u, const auto& v) { return nax::sum(w * f(u, v)); })(x, y);
    return compare_outputs<B>(c, -1, f(x, y), gx, gy);
  };
  if (op == "arctan2") return both([](const auto& u, const auto& v) { return nax::arctan2(u, v); });
  if (op == "hypot") return both([](const auto& u, const auto& v) { return nax::hypot(u, v); });
  if (op == "fmod") return both([](const auto& u, const auto& v) { return nax::fmod(u, v); });
  if (op == "remainder") return both([](const auto& u, const auto& v) { return nax::remainder(u, v); });
  return "unknown op " + op;
}

// layer_norm and rms_norm (flax's formulas) over b, scale and bias along b: the value and the
// gradient of sum(w * f) with respect to x, scale (and bias).
template <class B, class T>
std::string norms(const Case& c) {
  const auto x = B::template input<T, a, b>(c.in[0]);
  const auto scale = B::template input<T, b>(c.in[1]);
  if (c.op == "layer_norm") {
    const auto bias = B::template input<T, b>(c.in[2]);
    const auto w = B::template input<T, a, b>(c.in[3]);
    auto f = [](const auto& v, const auto& s, const auto& o) { return nax::layer_norm<b>(v, s, o); };
    auto [gx, gs, go] = nax::grad<0, 1, 2>([&](const auto& v, const auto& s, const auto& o) {
      return nax::sum(w * f(v, s, o));
    })(x, scale, bias);
    return compare_outputs<B>(c, -1, f(x, scale, bias), gx, gs, go);
  }
  const auto w = B::template input<T, a, b>(c.in[2]);
  auto f = [](const auto& v, const auto& s) { return nax::rms_norm<b>(v, s); };
  auto [gx, gs] = nax::grad<0, 1>([&](const auto& v, const auto& s) { return nax::sum(w * f(v, s)); })(x, scale);
  return compare_outputs<B>(c, -1, f(x, scale), gx, gs);
}

template <class B>
std::string integers(const Case& c) {
  using I = std::int32_t;
  const auto x = B::template input<I, a, b>(c.in[0]);
  if (c.op == "sign") return conf::check<B>(c, nax::sign(x));
  if (c.op == "floor") return conf::check<B>(c, nax::floor(x));
  if (c.op == "round") return conf::check<B>(c, nax::round(x));
  const auto y = B::template input<I, a, b>(c.in[1]);
  if (c.op == "fmod") return conf::check<B>(c, nax::fmod(x, y));
  if (c.op == "remainder") return conf::check<B>(c, nax::remainder(x, y));
  return "unknown op " + c.op;
}

template <class B>
std::string run(const Case& c) {
  if (c.dtype() == "int32") {
    if constexpr (B::template instantiates<std::int32_t>()) return integers<B>(c);
    else return conf::skip_because(B::not_instantiated("int32"));
  }
  return conf::by_dtype<B, float, double>(c.dtype(), [&](auto t) {
    using T = decltype(t);
    if (c.op == "layer_norm" || c.op == "rms_norm") return norms<B, T>(c);
    return c.in.size() == 3 ? with_operand<B, T>(c) : unary<B, T>(c);
  });
}

}  // namespace conf_nn
