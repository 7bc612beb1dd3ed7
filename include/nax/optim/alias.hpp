// The optimizers, built from the transforms as optax 0.2.8 builds them (optax/_src/alias.py),
// so their states have optax's shapes and their numbers optax's order of operations. A
// learning rate (and adamw's / lion's weight decay) is a number or a schedule.
#pragma once
#include "adam.hpp"
#include "chain.hpp"
#include "lion.hpp"
#include "rms.hpp"
#include "trace.hpp"
#include "weight_decay.hpp"

namespace nax::optim {

// optax.sgd(learning_rate): chain(identity, scale_by_learning_rate).
template <class Rate>
auto sgd(Rate learning_rate) {
  return chain(identity{}, scale_by_learning_rate(std::move(learning_rate)));
}
// optax.sgd(learning_rate, momentum, nesterov): chain(trace(momentum, nesterov), scale_by_learning_rate).
template <class Rate>
auto sgd(Rate learning_rate, double momentum, bool nesterov = false) {
  return chain(trace(momentum, nesterov), scale_by_learning_rate(std::move(learning_rate)));
}

// optax.adam: chain(scale_by_adam, scale_by_learning_rate).
template <class Rate>
auto adam(Rate learning_rate, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8, double eps_root = 0.0) {
  return chain(scale_by_adam(b1, b2, eps, eps_root), scale_by_learning_rate(std::move(learning_rate)));
}

// optax.adamw: chain(scale_by_adam, add_decayed_weights(weight_decay, mask), scale_by_learning_rate).
template <class Rate, class Decay = double, class Mask = all_leaves>
auto adamw(Rate learning_rate, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8, double eps_root = 0.0,
           Decay weight_decay = 1e-4, Mask mask = {}) {
  return chain(scale_by_adam(b1, b2, eps, eps_root),
               add_decayed_weights<Decay, Mask>(std::move(weight_decay), std::move(mask)),
               scale_by_learning_rate(std::move(learning_rate)));
}

// optax.rmsprop (eps inside the square root, no bias correction: optax's defaults):
// chain(scale_by_rms or, Centered, scale_by_stddev; scale_by_learning_rate; trace(momentum,
// nesterov) when Momentum, else identity). Centered and Momentum change the state's shape,
// so they are template arguments (optax: centered=True, momentum not None).
template <bool Centered = false, bool Momentum = false, class Rate>
auto rmsprop(Rate learning_rate, double decay = 0.9, double eps = 1e-8, double initial_scale = 0.0,
             double momentum = 0.0, bool nesterov = false) {
  auto scaling = [&] {
    if constexpr (Centered) return scale_by_stddev(decay, eps, initial_scale);
    else return scale_by_rms(decay, eps, initial_scale);
  }();
  auto last = [&] {
    if constexpr (Momentum) return trace(momentum, nesterov);
    else return identity{};
  }();
  return chain(std::move(scaling), scale_by_learning_rate(std::move(learning_rate)), std::move(last));
}

// optax.lion: chain(scale_by_lion, add_decayed_weights(weight_decay, mask), scale_by_learning_rate).
template <class Rate, class Decay = double, class Mask = all_leaves>
auto lion(Rate learning_rate, double b1 = 0.9, double b2 = 0.99, Decay weight_decay = 1e-3, Mask mask = {}) {
  return chain(scale_by_lion(b1, b2), add_decayed_weights<Decay, Mask>(std::move(weight_decay), std::move(mask)),
               scale_by_learning_rate(std::move(learning_rate)));
}

}  // namespace nax::optim
