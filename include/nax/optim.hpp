// nax::optim: optimizers and gradient transformations with optax's semantics (optax 0.2.8):
// init(params) -> state, update(grads, state, params) -> (updates, state), apply_updates; sgd,
// adam, adamw, rmsprop, lion; scale, scale_by_adam, scale_by_schedule, scale_by_learning_rate,
// clip, clip_by_global_norm, add_decayed_weights, trace, chain; optax's schedules. Each step is
// one fused pass per parameter leaf. See docs/training.md.
#pragma once
#include "nax.hpp"

#include "optim/alias.hpp"
#include "optim/base.hpp"
#include "optim/chain.hpp"
#include "optim/clip.hpp"
#include "optim/schedule.hpp"
#include "optim/scale.hpp"
#if defined(__CUDACC__)
#include "optim/fused_cuda.hpp"
#endif
