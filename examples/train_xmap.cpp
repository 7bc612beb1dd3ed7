// The first JAX program nax reproduces written with xmap: the whole (128, 3) batch, its example axis
// bound by name to the one axis of a 4-device host mesh. Inside the step every value is per
// example (the example axis is mapped), value_and_grad gives per-example gradients, and
// pmean over the example axis averages them over the whole batch (all devices): the same
// numbers as train_pmap (tests/autodiff checks the losses agree to 1e-6).
#include <cstdio>
#include <vector>

#include <nax/nax.hpp>

namespace train_xmap {
NAX_AXIS(data);
NAX_AXIS(example);
NAX_AXIS(in);
NAX_AXIS(out);

constexpr nax::index_t devices = 4, examples = 128, features = 3, steps = 10;

template <class Example>
auto make_data() {  // as train_pmap's
  namespace random = nax::random;
  auto [kx, kn] = random::split(random::key(0));
  nax::Array<float, Example, in> x = random::normal<Example, in>(kx, {examples, features});
  nax::Array<float, in, out> w_true({features, 1}, {2.f, -1.f, 0.5f});
  nax::Array<float, Example, out> y = nax::dot<in>(x, w_true) + 0.3f + 0.1f * random::normal<Example, out>(kn, {examples, 1});
  return std::make_pair(std::move(x), std::move(y));
}

inline auto loss_fn = [](const auto& params, const auto& x, const auto& y) {
  auto pred = nax::dot<in>(x, std::get<0>(params)) + std::get<1>(params);
  return nax::mean(nax::square(pred - y));
};

inline std::vector<double> run(bool print) {
  auto [x, y] = make_data<example>();
  auto params = nax::tuple(nax::ones<float, in, out>(features, 1), nax::zeros<float, out>(1));

  nax::Mesh<data> mesh(nax::host::devices(devices), {devices});
  auto train_step = nax::xmap<nax::bind<example, data>>([](const auto& p, const auto& xs, const auto& ys) {
    auto [loss, grads] = nax::value_and_grad(loss_fn)(p, xs, ys);  // per example
    auto mean_grads = nax::tree_map([](const auto& g) { return nax::pmean<example>(g); }, grads);
    auto updated = nax::tree_map([](const auto& w, const auto& g) { return w - 0.01f * g; }, p, mean_grads);
    return nax::tuple(updated, loss);
  }, mesh);

  std::vector<double> losses;
  for (nax::index_t step = 0; step < steps; ++step) {
    auto [new_params, loss] = train_step(params, x, y);  // loss: one per example
    params = std::move(new_params);
    losses.push_back(nax::mean(loss).item());
    if (print) std::printf("step %2d  loss %.6f\n", int(step), losses.back());
  }
  return losses;
}
}  // namespace train_xmap

#ifndef NAX_EXAMPLE_NO_MAIN
int main() {
  auto losses = train_xmap::run(true);
  if (!(losses.back() < losses.front())) {
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}
#endif
