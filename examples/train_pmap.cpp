// The seed's first program: data parallelism with pmap. A linear model dot(x, w) + b with a
// squared loss, trained for 10 steps on 4 host devices; each device holds 32 examples,
// computes its loss and gradients with value_and_grad, and the gradients are averaged over
// the devices with pmean (jax.lax.pmean(grads, 'batch')) before the update. Prints the mean
// loss of every step; exits non-zero unless the loss falls.
#include <cstdio>
#include <vector>

#include <nax/nax.hpp>

namespace train_pmap {
NAX_AXIS(device);
NAX_AXIS(example);
NAX_AXIS(in);
NAX_AXIS(out);

constexpr nax::index_t devices = 4, per_device = 32, features = 3, steps = 10;

// The data both train_pmap and train_xmap use: 128 examples, y = x . (2, -1, 0.5) + 0.3 + noise.
template <class Example>
auto make_data() {
  namespace random = nax::random;
  auto [kx, kn] = random::split(random::key(0));
  nax::Array<float, Example, in> x = random::normal<Example, in>(kx, {devices * per_device, features});
  nax::Array<float, in, out> w_true({features, 1}, {2.f, -1.f, 0.5f});
  nax::Array<float, Example, out> y = nax::dot<in>(x, w_true) + 0.3f + 0.1f * random::normal<Example, out>(kn, {devices * per_device, 1});
  return std::make_pair(std::move(x), std::move(y));
}

// The seed's model and loss: model(params, x) = dot(x, w) + b; loss = mean((pred - y)^2).
inline auto loss_fn = [](const auto& params, const auto& x, const auto& y) {
  auto pred = nax::dot<in>(x, std::get<0>(params)) + std::get<1>(params);
  return nax::mean(nax::square(pred - y));
};

inline std::vector<double> run(bool print) {
  auto [x_all, y_all] = make_data<example>();
  // (device, example, ...): the seed's x.reshape(4, 32, 3).
  nax::Array<float, device, example, in> x = nax::split<example, device, example>(x_all, per_device);
  nax::Array<float, device, example, out> y = nax::split<example, device, example>(y_all, per_device);
  auto params = nax::tuple(nax::ones<float, in, out>(features, 1), nax::zeros<float, out>(1));

  nax::Mesh<device> mesh(nax::host::devices(devices), {devices});
  auto train_step = nax::pmap<device>([](const auto& p, const auto& xs, const auto& ys) {
    auto [loss, grads] = nax::value_and_grad(loss_fn)(p, xs, ys);
    auto mean_grads = nax::tree_map([](const auto& g) { return nax::pmean<device>(g); }, grads);
    auto updated = nax::tree_map([](const auto& w, const auto& g) { return w - 0.01f * g; }, p, mean_grads);
    return nax::tuple(updated, loss);
  }, mesh);

  std::vector<double> losses;
  for (nax::index_t step = 0; step < steps; ++step) {
    auto [new_params, loss] = train_step(params, x, y);  // loss: one per device
    params = std::move(new_params);
    losses.push_back(nax::mean(loss).item());
    if (print) std::printf("step %2d  loss %.6f\n", int(step), losses.back());
  }
  return losses;
}
}  // namespace train_pmap

#ifndef NAX_EXAMPLE_NO_MAIN
int main() {
  auto losses = train_pmap::run(true);
  if (!(losses.back() < losses.front())) {
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}
#endif
