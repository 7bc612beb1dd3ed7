// A two-layer MLP trained on a 4 x 2 (data, model) host mesh: the batch is split over `data`
// (data parallelism) and the hidden units over `model` (model parallelism). Inside the step
// each device sees one example's slice of the hidden units; the second layer's sum over the
// hidden units is a psum over `model`; value_and_grad gives per-example gradients (the loss
// varies over the batch) of every parameter, each on the device that holds its hidden units,
// and pmean over the batch averages them. Prints the loss of every 10th step; exits non-zero
// unless the loss falls.
#include <cstdio>
#include <vector>

#include <nax/nax.hpp>

namespace mlp_2d_mesh {
NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);
NAX_AXIS(out);

constexpr nax::index_t examples = 64, features = 8, units = 16, outputs = 2, steps = 50;

inline std::vector<double> run(bool print) {
  namespace random = nax::random;
  auto keys = random::split(random::key(7), 4);
  nax::Array<float, batch, in> x = random::normal<batch, in>(keys[0], {examples, features});
  nax::Array<float, in, out> w_true = random::normal<in, out>(keys[1], {features, outputs});
  nax::Array<float, batch, out> y = nax::tanh(nax::dot<in>(x, w_true));

  // (w1, b1, w2, b2); the parameters with a hidden axis hold it first, as xmap returns them.
  auto params = nax::tuple(nax::Array<float, hidden, in>(0.3f * random::normal<hidden, in>(keys[2], {units, features})),
                           nax::zeros<float, hidden>(units),
                           nax::Array<float, hidden, out>(0.3f * random::normal<hidden, out>(keys[3], {units, outputs})),
                           nax::zeros<float, out>(outputs));
  auto loss_fn = [](const auto& p, const auto& xs, const auto& ys) {
    auto h = nax::tanh(nax::dot<in>(xs, std::get<0>(p)) + std::get<1>(p));  // this device's hidden units
    auto pred = nax::psum<hidden>(h * std::get<2>(p)) + std::get<3>(p);      // sum over all hidden units
    return nax::mean(nax::square(pred - ys));
  };

  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  auto train_step = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>([&](const auto& p, const auto& xs, const auto& ys) {
    auto [loss, grads] = nax::value_and_grad(loss_fn)(p, xs, ys);
    auto mean_grads = nax::tree_map([](const auto& g) { return nax::pmean<batch>(g); }, grads);
    auto updated = nax::tree_map([](const auto& w, const auto& g) { return w - 0.2f * g; }, p, mean_grads);
    return nax::tuple(updated, nax::pmean<batch>(loss));
  }, mesh);

  std::vector<double> losses;
  for (nax::index_t step = 0; step <= steps; ++step) {
    auto [new_params, loss] = train_step(params, x, y);
    losses.push_back(loss.item());
    if (print && step % 10 == 0) std::printf("step %3d  loss %.6f\n", int(step), losses.back());
    if (step < steps) params = std::move(new_params);
  }
  return losses;
}
}  // namespace mlp_2d_mesh

#ifndef NAX_EXAMPLE_NO_MAIN
int main() {
  auto losses = mlp_2d_mesh::run(true);
  if (!(losses.back() < losses.front())) {
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}
#endif
