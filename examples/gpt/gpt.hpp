// A character-level GPT (decoder-only transformer) written once, per example and per head,
// and trained by xmap on a (data, model) mesh: batch bound to `data`, attention heads and
// the MLP's hidden units both bound to `model` (Megatron-LM's tensor parallelism by name).
// The same code runs on one device (a 1 x 1 mesh), on an emulated 2 x 2 host mesh, and on
// the meshes of nax::mpi and nax::cuda. docs/gpt.md walks through it.
//
// Inside the step every value is one example's (batch is mapped), and a value that varies over
// heads or hidden units is one head's or one unit's: attention is written for one head, its
// output projection summed over heads with psum<head> (the row-parallel layer), the MLP for
// one unit, summed with psum<hidden>. Under grad, each evaluated intermediate is recorded
// (DESIGN 5b), so the forward pass is a C++ loop over a run-time number of layers. The
// layers' parameters are stacked along a `layer` axis (as JAX programs stack them for
// lax.scan), and the loop takes layer l's slice with take<layer>(w, l).
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nax/nax.hpp>
#include <nax/optim.hpp>

namespace gpt {

NAX_AXIS(data);   // mesh axis: replicas of the model, each with its part of the batch
NAX_AXIS(model);  // mesh axis: the parts of each layer (heads, MLP units)

NAX_AXIS(batch);     // sequences in a step
NAX_AXIS(pos);       // position in a sequence (queries)
NAX_AXIS(key_pos);   // position in a sequence, as attended to (keys and values)
NAX_AXIS(vocab);     // characters
NAX_AXIS(embed);     // the residual stream's width
NAX_AXIS(head);      // attention heads
NAX_AXIS(head_dim);  // width of one head
NAX_AXIS(hidden);    // the MLP's units
NAX_AXIS(layer);     // transformer blocks, stacked

using nax::index_t;

struct Config {
  index_t vocab = 65;
  index_t seq = 64;
  index_t embed = 64;
  index_t heads = 4;
  index_t layers = 2;
  index_t batch = 16;
  index_t hidden() const { return 4 * embed; }
  index_t head_width() const { return embed / heads; }
  void check() const {
    if (vocab < 1 || seq < 1 || embed < 1 || heads < 1 || layers < 1 || batch < 1)
      throw std::invalid_argument("gpt: every size must be at least 1");
    if (embed % heads != 0)
      throw std::invalid_argument("gpt: the width " + std::to_string(embed) + " is not a multiple of the " +
                                  std::to_string(heads) + " heads");
  }
};

// The pre-LayerNorm transformer blocks, stacked along `layer`. Axes that xmap splits over
// the mesh come first (head, hidden), as xmap returns them, so that a step's gradients have
// the parameters' layouts.
template <class T>
struct Blocks {
  BOOST_HANA_DEFINE_STRUCT(Blocks,
                           (nax::Array<T, layer, embed>, ln1_scale), (nax::Array<T, layer, embed>, ln1_bias),
                           (nax::Array<T, head, layer, embed, head_dim>, wq),
                           (nax::Array<T, head, layer, embed, head_dim>, wk),
                           (nax::Array<T, head, layer, embed, head_dim>, wv),
                           (nax::Array<T, head, layer, head_dim, embed>, wo),
                           (nax::Array<T, layer, embed>, ln2_scale), (nax::Array<T, layer, embed>, ln2_bias),
                           (nax::Array<T, hidden, layer, embed>, w_up), (nax::Array<T, hidden, layer>, b_up),
                           (nax::Array<T, hidden, layer, embed>, w_down), (nax::Array<T, layer, embed>, b_down));
};

template <class T>
struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params,
                           (nax::Array<T, vocab, embed>, token_embedding), (nax::Array<T, pos, embed>, position_embedding),
                           (Blocks<T>, blocks),
                           (nax::Array<T, embed>, lnf_scale), (nax::Array<T, embed>, lnf_bias),
                           (nax::Array<T, embed, vocab>, w_out));
};

// GPT-2's initialisation: weights N(0, 0.02^2), biases 0, LayerNorm scales 1. The keys are
// split as tests/conformance/generate.py splits them, so that JAX builds the same numbers
// from the same seed: key(seed) splits into token, position, output and one key per weight
// of the blocks, each drawn with the layers stacked (in JAX's shape order: layer first).
template <class T>
Params<T> init(const Config& c, std::uint32_t seed) {
  namespace random = nax::random;
  c.check();
  const index_t e = c.embed, h = c.heads, d = c.head_width(), f = c.hidden(), n = c.layers;
  auto keys = random::split(random::key(seed), 9);
  auto normal = [](auto&& sample) { return T(0.02) * nax::cast<T>(sample); };
  Params<T> p;
  p.token_embedding = normal(random::normal<vocab, embed>(keys[0], {c.vocab, e}));
  p.position_embedding = normal(random::normal<pos, embed>(keys[1], {c.seq, e}));
  p.w_out = normal(random::normal<embed, vocab>(keys[2], {e, c.vocab}));
  p.lnf_scale = nax::ones<T, embed>(e);
  p.lnf_bias = nax::zeros<T, embed>(e);
  Blocks<T>& b = p.blocks;
  b.ln1_scale = nax::ones<T, layer, embed>(n, e);
  b.ln1_bias = nax::zeros<T, layer, embed>(n, e);
  b.wq = normal(random::normal<layer, head, embed, head_dim>(keys[3], {n, h, e, d}));
  b.wk = normal(random::normal<layer, head, embed, head_dim>(keys[4], {n, h, e, d}));
  b.wv = normal(random::normal<layer, head, embed, head_dim>(keys[5], {n, h, e, d}));
  b.wo = normal(random::normal<layer, head, head_dim, embed>(keys[6], {n, h, d, e}));
  b.ln2_scale = nax::ones<T, layer, embed>(n, e);
  b.ln2_bias = nax::zeros<T, layer, embed>(n, e);
  b.w_up = normal(random::normal<layer, embed, hidden>(keys[7], {n, e, f}));
  b.b_up = nax::zeros<T, hidden, layer>(f, n);
  b.w_down = normal(random::normal<layer, hidden, embed>(keys[8], {n, f, e}));
  b.b_down = nax::zeros<T, layer, embed>(n, e);
  return p;
}

// LayerNorm over the residual stream (jax.nn.standardize's variance, epsilon 1e-5).
inline auto layer_norm = [](const auto& x, const auto& scale, const auto& bias) {
  return nax::standardize<embed>(x, 1e-5) * scale + bias;
};

// Block l, for one example; x is [pos, embed]. Heads and hidden units are mapped: q, k, v,
// the scores and the MLP's activation are one head's, one unit's.
inline auto block = [](const auto& x, const auto& blocks, index_t l) {
  const auto& [ln1_scale, ln1_bias, wq, wk, wv, wo, ln2_scale, ln2_bias, w_up, b_up, w_down, b_down] = blocks;
  using T = typename nax::detail::expr_t<decltype(wq)>::value_type;
  const index_t n = nax::extent<pos>(x);
  auto h = nax::eval(layer_norm(x, nax::take<layer>(ln1_scale, l), nax::take<layer>(ln1_bias, l)));
  auto q = nax::eval(nax::dot<embed>(h, nax::take<layer>(wq, l)));  // [pos, head_dim]
  auto k = nax::eval(nax::rename<pos, key_pos>(nax::dot<embed>(h, nax::take<layer>(wk, l))));  // [key_pos, head_dim]
  auto v = nax::eval(nax::rename<pos, key_pos>(nax::dot<embed>(h, nax::take<layer>(wv, l))));
  const T scale = T(1) / std::sqrt(T(nax::extent<head_dim>(q)));
  // A query sees the keys up to itself. pos first: the scores take the mask's axis order, and
  // stored [pos, key_pos] the softmax sums along the inner axis (as [key_pos, pos] it read every
  // sum across the rows).
  auto causal = nax::axis_index<pos>(n) >= nax::axis_index<key_pos>(n);
  // The scores are an evaluation of their own: the softmax reads them twice (in exp(s - max)
  // and in its sum), and grad sends a cotangent back along each read, so as one expression
  // the scores' contraction had its adjoint (two GEMMs) run twice; here the two cotangents
  // add up in the scores' buffer and the adjoint runs once (bench/README.md, the GPT step).
  auto scores = nax::eval(nax::where(causal, nax::dot<head_dim>(q, k) * scale, T(-1e30)));  // [pos, key_pos]
  auto attention = nax::eval(nax::softmax<key_pos>(scores));
  auto mixed = nax::eval(nax::dot<key_pos>(attention, v));  // [pos, head_dim]
  // Row-parallel output projection: each device sums its heads, psum sums the devices'.
  auto x1 = nax::eval(x + nax::psum<head>(nax::dot<head_dim>(mixed, nax::take<layer>(wo, l))));
  auto h2 = nax::eval(layer_norm(x1, nax::take<layer>(ln2_scale, l), nax::take<layer>(ln2_bias, l)));
  auto unit = nax::eval(nax::gelu(nax::dot<embed>(h2, nax::take<layer>(w_up, l)) + nax::take<layer>(b_up, l)));  // [pos]
  return nax::eval(x1 + nax::psum<hidden>(unit * nax::take<layer>(w_down, l)) + nax::take<layer>(b_down, l));
};

// The next-character logits of one example, [pos, vocab]; tokens are [pos].
inline auto example_logits = [](const auto& params, const auto& tokens) {
  const auto& [token_embedding, position_embedding, blocks, lnf_scale, lnf_bias, w_out] = params;
  const index_t layers = nax::extent<layer>(std::get<0>(blocks));
  if (layers < 1) throw std::invalid_argument("gpt: the model needs at least one block");
  auto x0 = nax::eval(nax::take<vocab>(token_embedding, tokens) + position_embedding);
  auto x = block(x0, blocks, 0);  // (the residual stream's type settles after the first block)
  for (index_t l = 1; l < layers; ++l) x = block(x, blocks, l);
  return nax::dot<embed>(layer_norm(x, lnf_scale, lnf_bias), w_out);
};

// The mean next-character cross-entropy of one example: tokens and targets are [pos].
inline auto example_loss = [](const auto& params, const auto& tokens, const auto& targets) {
  return nax::mean(nax::softmax_cross_entropy_with_integer_labels<vocab>(example_logits(params, tokens), targets));
};

// The mesh a step runs on: data x model devices (1 x 1: one device).
using Mesh = nax::Mesh<data, model>;

// One step's loss (the batch's mean) and gradients of it, as a tuple (loss, gradient tree
// with Params' shape). The loss is averaged over the batch (pmean) inside value_and_grad, so
// each gradient is the mean loss's: its contractions sum over the batch as they go, where
// per-example gradients averaged afterwards (the same numbers) would hold one gradient of
// every parameter per example and contract over positions only.
inline auto make_gradient_step(Mesh mesh) {
  auto step = nax::xmap<nax::bind<batch, data>, nax::bind<head, model>, nax::bind<hidden, model>>(
      [](const auto& params, const auto& tokens, const auto& targets) {
        auto mean_loss = [&](const auto& p) { return nax::pmean<batch>(example_loss(p, tokens, targets)); };
        return nax::value_and_grad(mean_loss)(params);
      },
      std::move(mesh));
  return [step]<class T>(const Params<T>& params, const nax::Array<std::int32_t, batch, pos>& tokens,
                         const nax::Array<std::int32_t, batch, pos>& targets) {
    auto [loss, grads] = step(params, tokens, targets);
    return std::make_pair(T(loss.item()), nax::tree_cast<Params<T>>(std::move(grads)));
  };
}

// The logits [batch, pos, vocab] of a batch of sequences, on a mesh (for sampling).
inline auto make_logits(Mesh mesh) {
  return nax::xmap<nax::bind<batch, data>, nax::bind<head, model>, nax::bind<hidden, model>>(
      [](const auto& params, const auto& tokens) { return example_logits(params, tokens); }, std::move(mesh));
}

// Training as optax writes it: AdamW whose learning rate warms up linearly from 0 and then
// follows a cosine down to end_rate at `steps`, after clipping the gradients to a global norm.
struct Schedule {
  index_t steps = 1000;
  index_t warmup = 50;
  double peak_rate = 1e-2;
  double end_rate = 1e-3;
  double clip_norm = 1.0;
  double weight_decay = 1e-4;
};

inline auto make_optimizer(const Schedule& s) {
  namespace optim = nax::optim;
  auto rate = optim::warmup_cosine_decay_schedule(0.0, s.peak_rate, s.warmup, s.steps, s.end_rate);
  return optim::chain(optim::clip_by_global_norm(s.clip_norm),
                      optim::adamw(rate, 0.9, 0.999, 1e-8, 0.0, s.weight_decay));
}

// Parameters, optimizer state and step count, trained on one mesh.
template <class T>
struct Trainer {
  using Optimizer = decltype(make_optimizer(Schedule{}));
  using State = decltype(std::declval<const Optimizer&>().init(std::declval<const Params<T>&>()));

  Params<T> params;
  Optimizer optimizer;
  State state;
  index_t step = 0;
  decltype(make_gradient_step(std::declval<Mesh>())) gradient_step;

  Trainer(Params<T> p, const Schedule& schedule, Mesh mesh)
      : params(std::move(p)), optimizer(make_optimizer(schedule)), state(optimizer.init(params)),
        gradient_step(make_gradient_step(std::move(mesh))) {}

  // One step on a batch; returns the loss before the update.
  T train(const nax::Array<std::int32_t, batch, pos>& tokens, const nax::Array<std::int32_t, batch, pos>& targets) {
    auto [loss, grads] = gradient_step(params, tokens, targets);
    auto [updates, new_state] = optimizer.update(grads, std::move(state), params);
    params = nax::optim::apply_updates(std::move(params), updates);
    state = std::move(new_state);
    ++step;
    return loss;
  }
};

}  // namespace gpt
