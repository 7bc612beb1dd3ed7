// expect-compile
// The control of the optim_* snippets: their fixed versions (matching trees and state, a mask
// per leaf, params given, a number and a schedule as learning rates), a chain in a chain, and
// update(grads, state) for a transform that reads no params.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>
NAX_AXIS(a);
NAX_AXIS(b);
int main() {
  namespace optim = nax::optim;
  auto params = std::make_tuple(nax::ones<float, a>(3), nax::ones<float, b>(2));
  auto opt = optim::chain(optim::clip_by_global_norm(1.0),
                          optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 0.1, 10, 100), 0.9, 0.999, 1e-8, 0.0,
                                       1e-4, std::make_tuple(true, false)));
  auto state = opt.init(params);
  auto [updates, next] = opt.update(params, state, params);
  params = optim::apply_updates(params, updates);
  auto sgd = optim::sgd(0.1);
  auto sgd_state = sgd.init(params);
  auto [u2, s2] = sgd.update(params, sgd_state);
  auto [p3, s3] = optim::update_and_apply(opt, u2, std::move(next), std::move(params));
  (void)p3;
  (void)s3;
  (void)s2;
}
