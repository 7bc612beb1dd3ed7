// The second JAX program nax reproduces: parallel logistic regression with pmap. 20 features, 32 examples
// on each of 4 host devices, labels +-1, loss -mean(log_sigmoid(y (x . w + b))); 100 steps of
// gradient descent with the gradients averaged over the devices (pmean); the loss printed every
// 20 steps. Data from nax::random (JAX's threefry). Exits non-zero unless the loss falls.
#include <cstdio>
#include <vector>

#include <nax/nax.hpp>

namespace train_logistic {
NAX_AXIS(device);
NAX_AXIS(example);
NAX_AXIS(feature);

constexpr nax::index_t devices = 4, per_device = 32, features = 20, steps = 100;

inline std::vector<double> run(bool print) {
  namespace random = nax::random;
  auto keys = random::split(random::key(42), 3);
  nax::Array<float, device, example, feature> x = random::normal<device, example, feature>(keys[0], {devices, per_device, features});
  nax::Array<float, feature> w_true = random::normal<feature>(keys[1], {features});
  auto noise = random::normal<device, example>(keys[2], {devices, per_device});
  nax::Array<float, device, example> y = nax::where(nax::dot<feature>(x, w_true) + 0.5f * noise > 0.f, 1.f, -1.f);

  auto params = nax::tuple(nax::zeros<float, feature>(features), nax::zeros<float>());
  auto loss_fn = [](const auto& p, const auto& xs, const auto& ys) {
    auto logits = nax::dot<feature>(xs, std::get<0>(p)) + std::get<1>(p);
    return -nax::mean(nax::log_sigmoid(ys * logits));
  };

  nax::Mesh<device> mesh(nax::host::devices(devices), {devices});
  auto train_step = nax::pmap<device>([&](const auto& p, const auto& xs, const auto& ys) {
    auto [loss, grads] = nax::value_and_grad(loss_fn)(p, xs, ys);
    auto mean_grads = nax::tree_map([](const auto& g) { return nax::pmean<device>(g); }, grads);
    auto updated = nax::tree_map([](const auto& w, const auto& g) { return w - 0.5f * g; }, p, mean_grads);
    return nax::tuple(updated, nax::pmean<device>(loss));
  }, mesh);

  std::vector<double> losses;
  for (nax::index_t step = 0; step <= steps; ++step) {
    auto [new_params, loss] = train_step(params, x, y);
    losses.push_back(loss.item());
    if (print && step % 20 == 0) std::printf("step %3d  loss %.6f\n", int(step), losses.back());
    if (step < steps) params = std::move(new_params);
  }
  return losses;
}
}  // namespace train_logistic

#ifndef NAX_EXAMPLE_NO_MAIN
int main() {
  auto losses = train_logistic::run(true);
  if (!(losses.back() < losses.front())) {
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}
#endif
