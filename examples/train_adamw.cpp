// train_logistic's model (20 features, labels +-1, loss -mean(log_sigmoid(y (x . w + b))))
// trained with nax::optim, as an optax user writes it: adamw whose learning rate warms up
// linearly for 10 steps and then follows a cosine to 1e-3 at step 100, after clipping the
// gradients to a global norm of 1. The parameters are a Hana struct; the loop is optax's
// (init, update, apply_updates). Prints the loss every 20 steps; exits non-zero unless it falls.
#include <cstdio>
#include <vector>

#include <nax/optim.hpp>

namespace train_adamw {
NAX_AXIS(example);
NAX_AXIS(feature);

struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (nax::Array<float, feature>, w), (nax::Array<float>, b));
};

constexpr nax::index_t examples = 128, features = 20, steps = 100;

inline std::vector<double> run(bool print) {
  namespace random = nax::random;
  namespace optim = nax::optim;
  auto keys = random::split(random::key(42), 3);
  nax::Array<float, example, feature> x = random::normal<example, feature>(keys[0], {examples, features});
  nax::Array<float, feature> w_true = random::normal<feature>(keys[1], {features});
  auto noise = random::normal<example>(keys[2], {examples});
  nax::Array<float, example> y = nax::where(nax::dot<feature>(x, w_true) + 0.5f * noise > 0.f, 1.f, -1.f);

  Params params{nax::zeros<float, feature>(features), nax::zeros<float>()};
  auto loss_fn = [&](const Params& p) {
    return -nax::mean(nax::log_sigmoid(y * (nax::dot<feature>(x, p.w) + p.b)));
  };

  // optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))
  auto schedule = optim::warmup_cosine_decay_schedule(0.0, 0.1, 10, steps, 1e-3);
  auto opt = optim::chain(optim::clip_by_global_norm(1.0), optim::adamw(schedule));
  auto state = opt.init(params);

  std::vector<double> losses;
  for (nax::index_t step = 0; step <= steps; ++step) {
    auto [loss, grads] = nax::value_and_grad(loss_fn)(params);
    losses.push_back(loss.item());
    if (print && step % 20 == 0)
      std::printf("step %3d  loss %.6f  learning rate %.5f\n", int(step), losses.back(), schedule(step));
    if (step == steps) break;
    auto [updates, new_state] = opt.update(grads, std::move(state), params);  // the state's buffers are reused
    params = optim::apply_updates(std::move(params), updates);
    state = std::move(new_state);
  }
  return losses;
}
}  // namespace train_adamw

#ifndef NAX_EXAMPLE_NO_MAIN
int main() {
  auto losses = train_adamw::run(true);
  if (!(losses.back() < 0.5 * losses.front())) {
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}
#endif
