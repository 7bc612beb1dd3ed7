// train_logistic's model (20 features, labels +-1, loss -mean(log_sigmoid(y (x . w + b))))
// trained with nax::optim, as an optax user writes it: adamw whose learning rate warms up
// linearly for 10 steps and then follows a cosine to 1e-3 at step 100, after clipping the
// gradients to a global norm of 1. The parameters are a Hana struct; the loop is optax's
// (init, update, apply_updates). Prints the loss every 20 steps; exits non-zero unless it falls.
// With --checkpoint PATH it resumes from PATH when that file exists, and with --stop-after N
// it saves the parameters, the optimizer's state and the step there (a .npz, nax::io::
// save_tree) after computing step N's loss, and stops: the resumed run's losses are the ones
// an uninterrupted run prints (tests/io/resume_test.cpp checks it bit for bit).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nax/io.hpp>
#include <nax/optim.hpp>

namespace train_adamw {
NAX_AXIS(example);
NAX_AXIS(feature);

struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (nax::Array<float, feature>, w), (nax::Array<float>, b));
};

constexpr nax::index_t examples = 128, features = 20, steps = 100;

// The losses of steps [first, last], first being 0 or the resumed checkpoint's step.
inline std::vector<double> run(bool print, const std::string& checkpoint = "", nax::index_t stop_after = -1) {
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

  nax::index_t first = 0;
  if (!checkpoint.empty() && std::filesystem::exists(checkpoint)) {
    // The same tree that was saved: parameters, state, step (a rank-0 array).
    auto [p, st, at] = nax::io::load_tree(checkpoint, std::make_tuple(params, state, nax::Array<std::int64_t>()));
    params = std::move(p);
    state = std::move(st);
    first = at.item();
    if (print) std::printf("resumed from %s at step %d\n", checkpoint.c_str(), int(first));
  }

  std::vector<double> losses;
  for (nax::index_t step = first; step <= steps; ++step) {
    auto [loss, grads] = nax::value_and_grad(loss_fn)(params);
    losses.push_back(loss.item());
    if (print && step % 20 == 0)
      std::printf("step %3d  loss %.6f  learning rate %.5f\n", int(step), losses.back(), schedule(step));
    if (step == stop_after && !checkpoint.empty()) {
      nax::Array<std::int64_t> at(std::array<nax::index_t, 0>{});
      at.data()[0] = step;
      nax::io::save_tree(checkpoint, std::make_tuple(params, state, at));
      if (print) std::printf("saved %s at step %d\n", checkpoint.c_str(), int(step));
      break;
    }
    if (step == steps) break;
    auto [updates, new_state] = opt.update(grads, std::move(state), params);  // the state's buffers are reused
    params = optim::apply_updates(std::move(params), updates);
    state = std::move(new_state);
  }
  return losses;
}
}  // namespace train_adamw

#ifndef NAX_EXAMPLE_NO_MAIN
int main(int argc, char** argv) {
  std::string checkpoint;
  nax::index_t stop_after = -1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--checkpoint") && i + 1 < argc) checkpoint = argv[++i];
    else if (!std::strcmp(argv[i], "--stop-after") && i + 1 < argc) stop_after = std::stoll(argv[++i]);
    else {
      std::printf("usage: train_adamw [--checkpoint PATH [--stop-after STEP]]\n");
      return 2;
    }
  }
  auto losses = train_adamw::run(true, checkpoint, stop_after);
  if (stop_after >= 0) return 0;
  if (!(losses.back() < 0.5 * losses.front())) {
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}
#endif
