// Shared by the conformance tests of families `grad` and `training` (grad_*_test.cpp,
// training*_test.cpp): the examples' models and losses written for any element type, the JAX programs'
// training loops, and a helper comparing several outputs. Data: generate.py's family_grad and
// family_training.
#pragma once
#include <boost/hana/define_struct.hpp>

#include "conformance.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace conf_grad {

using conf::Case;

NAX_AXIS(ex);      // examples (the examples' `example`)
NAX_AXIS(in);      // features (train_logistic's `feature`)
NAX_AXIS(out);     // outputs
NAX_AXIS(hidden);  // the MLP's hidden units
NAX_AXIS(dev);     // devices (the examples' `device`)

// examples/train_pmap.cpp's model and loss: w (in, out), b (out), x (ex, in), y (ex, out).
const auto linear_loss = [](const auto& params, const auto& x, const auto& y) {
  auto pred = nax::dot<in>(x, std::get<0>(params)) + std::get<1>(params);
  return nax::mean(nax::square(pred - y));
};

// examples/train_logistic.cpp's loss: w (in), b rank 0, y (ex) labels +-1.
const auto logistic_loss = [](const auto& p, const auto& xs, const auto& ys) {
  auto logits = nax::dot<in>(xs, std::get<0>(p)) + std::get<1>(p);
  return -nax::mean(nax::log_sigmoid(ys * logits));
};

// examples/mlp_2d_mesh.cpp's MLP on one device (its psum<hidden>(h * w2) is dot<hidden>(h, w2)
// here): w1 (hidden, in), b1 (hidden), w2 (hidden, out), b2 (out).
struct Tanh {
  template <class E>
  auto operator()(const E& e) const { return nax::tanh(e); }
};
struct Relu {
  template <class E>
  auto operator()(const E& e) const { return nax::relu(e); }
};
template <class Act>
auto mlp(const auto& w1, const auto& b1, const auto& w2, const auto& b2, const auto& xs, const auto& ys) {
  auto h = Act{}(nax::dot<in>(xs, w1) + b1);
  auto pred = nax::dot<hidden>(h, w2) + b2;
  return nax::mean(nax::square(pred - ys));
}
template <class Act>
const auto mlp_loss = [](const auto& p, const auto& xs, const auto& ys) {
  return mlp<Act>(std::get<0>(p), std::get<1>(p), std::get<2>(p), std::get<3>(p), xs, ys);
};

// The pytree case: JAX's dict {w1, b1, w2, b2} as a Hana struct.
template <class T>
struct MlpParams {
  BOOST_HANA_DEFINE_STRUCT(MlpParams, (nax::Array<T, hidden, in>, w1), (nax::Array<T, hidden>, b1),
                           (nax::Array<T, hidden, out>, w2), (nax::Array<T, out>, b2));
};

// Compares outputs first, first+1, ... with the given arrays; "" or the first disagreement.
template <class... A>
std::string compare_all(const Case& c, std::size_t first, const A&... got) {
  std::string e;
  std::size_t k = first;
  auto one = [&](const auto& g) {
    if (e.empty()) {
      e = conf::compare_scaled(c.out.at(k), g);  // (values and gradients: conformance.hpp says why)
      if (!e.empty()) e = "output " + std::to_string(k) + ": " + e;
    }
    ++k;
  };
  (one(got), ...);
  return e;
}

// ---- family training ------------------------------------------------------------------------
// The loops of examples/train_pmap.cpp and train_logistic.cpp (same model, loss, step and update;
// pmap on 4 host devices, value_and_grad per device, pmean of the gradients), over T. The
// float64 cases read the float32 case's data, widened (their parameter inputs=NAME).

// A float32 input read as T (the float64 cases widen the float32 case's data).
template <class T, class... As>
nax::Array<T, As...> input(const npy::Array& a) {
  if constexpr (std::is_same_v<T, float>) return conf::to_array<float, As...>(a);
  else return nax::Array<T, As...>(nax::cast<T>(conf::to_array<float, As...>(a)));
}

// The largest |got - want| / |want| over n values (want: JAX's, finite and non-zero here).
template <class T>
double max_rel_error(const npy::Array& want, const T* got, std::int64_t n) {
  double m = 0;
  for (std::int64_t k = 0; k < n; ++k) m = std::max(m, std::fabs(double(got[k]) - want.as_double(k)) / std::fabs(want.as_double(k)));
  return m;
}

// Outputs: the losses (steps), then the final params. Reports the largest relative error (the
// margin below the bound after many steps).
template <class T, class P>
std::string compare_run(const Case& c, const std::vector<T>& losses, const P& params, double rtol) {
  std::string e = conf::compare(c.out.at(0), losses.data(), {std::int64_t(losses.size())}, rtol);
  if (e.empty()) e = conf::compare(c.out.at(1), std::get<0>(params), rtol);
  if (e.empty()) e = conf::compare(c.out.at(2), std::get<1>(params), rtol);
  if (e.empty()) {
    const double m = std::max({max_rel_error(c.out[0], losses.data(), std::int64_t(losses.size())),
                               max_rel_error(c.out[1], std::get<0>(params).data(), std::get<0>(params).size()),
                               max_rel_error(c.out[2], std::get<1>(params).data(), std::get<1>(params).size())});
    MESSAGE(c.name << ": largest relative error over the losses and final params " << m);
  }
  return e;
}

// examples/train_pmap.cpp's run(): 10 steps; a step's loss is the mean of the devices' losses.
template <class T>
std::string train_pmap(const Case& c, const Case& data, double rtol) {
  nax::Array<T, dev, ex, in> x = input<T, dev, ex, in>(data.in.at(0));
  nax::Array<T, dev, ex, out> y = input<T, dev, ex, out>(data.in.at(1));
  auto params = nax::tuple(nax::ones<T, in, out>(x.template extent<in>(), 1), nax::zeros<T, out>(1));
  const double lr = c.number("lr");  // 0.01, weakly typed as the example's 0.01f

  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  auto train_step = nax::pmap<dev>([lr](const auto& p, const auto& xs, const auto& ys) {
    auto [loss, grads] = nax::value_and_grad(linear_loss)(p, xs, ys);
    auto mean_grads = nax::tree_map([](const auto& g) { return nax::pmean<dev>(g); }, grads);
    auto updated = nax::tree_map([lr](const auto& w, const auto& g) { return w - lr * g; }, p, mean_grads);
    return nax::tuple(updated, loss);
  }, mesh);

  std::vector<T> losses;
  for (std::int64_t step = 0; step < c.integer("steps"); ++step) {
    auto [new_params, loss] = train_step(params, x, y);  // loss: one per device
    params = std::move(new_params);
    losses.push_back(nax::mean(loss).item());
  }
  return compare_run(c, losses, params, rtol);
}

// examples/train_logistic.cpp's run(): the loss (pmean over the devices) at steps 0..100, the
// params after 100 updates.
template <class T>
std::string train_logistic(const Case& c, const Case& data, double rtol) {
  nax::Array<T, dev, ex, in> x = input<T, dev, ex, in>(data.in.at(0));
  nax::Array<T, dev, ex> y = input<T, dev, ex>(data.in.at(1));
  auto params = nax::tuple(nax::zeros<T, in>(x.template extent<in>()), nax::zeros<T>());
  const double lr = c.number("lr");  // 0.5

  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  auto train_step = nax::pmap<dev>([lr](const auto& p, const auto& xs, const auto& ys) {
    auto [loss, grads] = nax::value_and_grad(logistic_loss)(p, xs, ys);
    auto mean_grads = nax::tree_map([](const auto& g) { return nax::pmean<dev>(g); }, grads);
    auto updated = nax::tree_map([lr](const auto& w, const auto& g) { return w - lr * g; }, p, mean_grads);
    return nax::tuple(updated, nax::pmean<dev>(loss));
  }, mesh);

  std::vector<T> losses;
  const std::int64_t steps = c.integer("steps");
  for (std::int64_t step = 0; step <= steps; ++step) {
    auto [new_params, loss] = train_step(params, x, y);
    losses.push_back(loss.item());
    if (step < steps) params = std::move(new_params);
  }
  return compare_run(c, losses, params, rtol);
}

inline const Case& data_of(const std::vector<Case>& cases, const Case& c) {
  if (!c.has("inputs")) return c;
  for (const auto& d : cases)
    if (d.name == c.param("inputs")) return d;
  throw std::runtime_error("no case " + c.param("inputs"));
}

}  // namespace conf_grad
