// The programs of family `grad` that run on every backend: jax.grad and jax.value_and_grad of
// the JAX programs' losses (the linear model's params tuple (w, b), loss(w, b, x, y) with argnums
// (0, 1), the logistic loss) and of the two-layer MLP over a params tuple (tanh, relu). Over a
// backend B (backend.hpp): grad_test.cpp and grad_mlp_test.cpp run them on the host,
// tests/cuda/test_conformance_*.cu on the CUDA backend. Inputs and outputs in generate.py's order.
#pragma once
#include "backend.hpp"
#include "grad.hpp"

namespace conf_grad {

// Outputs first, first+1, ... against B's results (copied to the host).
template <class B, class... E>
std::string compare_on(const Case& c, std::size_t first, const E&... got) {
  return compare_all(c, first, B::result(got)...);
}

template <class B, class T>
std::string run_losses(const Case& c) {
  const auto& in_ = c.in;
  if (c.op == "linear") {  // value_and_grad (outputs 0-2) and grad (3-4) w.r.t. params (w, b)
    auto w = B::template input<T, in, out>(in_[0]);
    auto b = B::template input<T, out>(in_[1]);
    auto x = B::template input<T, ex, in>(in_[2]);
    auto y = B::template input<T, ex, out>(in_[3]);
    auto params = std::tie(w, b);
    auto [v, g] = nax::value_and_grad(linear_loss)(params, x, y);
    auto g2 = nax::grad(linear_loss)(params, x, y);
    return compare_on<B>(c, 0, v, std::get<0>(g), std::get<1>(g), std::get<0>(g2), std::get<1>(g2));
  }
  if (c.op == "argnums") {  // loss(w, b, x, y): grad<0, 1> (outputs 0-1), value_and_grad<0, 1> (2-4)
    auto w = B::template input<T, in, out>(in_[0]);
    auto b = B::template input<T, out>(in_[1]);
    auto x = B::template input<T, ex, in>(in_[2]);
    auto y = B::template input<T, ex, out>(in_[3]);
    auto f = [](const auto& w_, const auto& b_, const auto& x_, const auto& y_) {
      return linear_loss(std::tie(w_, b_), x_, y_);
    };
    auto [gw, gb] = nax::grad<0, 1>(f)(w, b, x, y);
    auto [v, g] = nax::value_and_grad<0, 1>(f)(w, b, x, y);
    return compare_on<B>(c, 0, gw, gb, v, std::get<0>(g), std::get<1>(g));
  }
  if (c.op == "logistic") {  // value_and_grad (0-2) and grad (3-4) w.r.t. params (w, b scalar)
    auto w = B::template input<T, in>(in_[0]);
    auto b = B::template input<T>(in_[1]);
    auto x = B::template input<T, ex, in>(in_[2]);
    auto y = B::template input<T, ex>(in_[3]);
    auto params = std::tie(w, b);
    auto [v, g] = nax::value_and_grad(logistic_loss)(params, x, y);
    auto g2 = nax::grad(logistic_loss)(params, x, y);
    return compare_on<B>(c, 0, v, std::get<0>(g), std::get<1>(g), std::get<0>(g2), std::get<1>(g2));
  }
  return conf::skip();
}

// value_and_grad of the MLP w.r.t. the tuple (w1, b1, w2, b2): the value, then the gradients.
template <class B, class T>
std::string run_mlp(const Case& c) {
  if (c.op != "mlp") return conf::skip();
  const auto& in_ = c.in;
  auto w1 = B::template input<T, hidden, in>(in_[0]);
  auto b1 = B::template input<T, hidden>(in_[1]);
  auto w2 = B::template input<T, hidden, out>(in_[2]);
  auto b2 = B::template input<T, out>(in_[3]);
  auto x = B::template input<T, ex, in>(in_.at(4));
  auto y = B::template input<T, ex, out>(in_.at(5));
  auto params = std::tie(w1, b1, w2, b2);
  auto check = [&](const auto& loss) {
    auto [v, g] = nax::value_and_grad(loss)(params, x, y);
    return compare_on<B>(c, 0, v, std::get<0>(g), std::get<1>(g), std::get<2>(g), std::get<3>(g));
  };
  if (c.param("act") == "tanh") return check(mlp_loss<Tanh>);
  if (c.param("act") == "relu") return check(mlp_loss<Relu>);
  return "unknown act " + c.param("act");
}

// Both, by the case's dtype (the types B compiles the programs for).
template <class B>
std::string run_losses_for(const Case& c) {
  if (c.op != "linear" && c.op != "argnums" && c.op != "logistic") return conf::skip();
  return conf::by_dtype<B, float, double>(c.dtype(), [&](auto t) { return run_losses<B, decltype(t)>(c); });
}
template <class B>
std::string run_mlp_for(const Case& c) {
  if (c.op != "mlp") return conf::skip();
  return conf::by_dtype<B, float, double>(c.dtype(), [&](auto t) { return run_mlp<B, decltype(t)>(c); });
}

}  // namespace conf_grad
