// The programs of family `index` (data/index/): take in each index mode (clip as take_along_axis,
// fill and wrap as jnp.take), take along an inner axis with a fill value, take_along_axis,
// optax's cross-entropy with integer labels (50,000 classes in float32 too), one_hot, and the
// scatters (x.at[idx].add/max/min/set: out-of-range updates dropped, and add with clip); each
// value and, where one exists, the gradient of sum(w * f). Over a backend B (backend.hpp):
// index_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the CUDA backend.
#pragma once
#include "nn.hpp"

namespace conf_index {

NAX_AXIS(v);
NAX_AXIS(w);
NAX_AXIS(t);
NAX_AXIS(b);

using conf::Case;
using conf_nn::compare_outputs;
using I = std::int32_t;

template <class B, class T>
std::string run_typed(const Case& c) {
  const std::string& op = c.op;
  auto weighted = [&](const auto& x, const auto& weights, auto f) {
    auto g = nax::grad([&](const auto& a) { return nax::sum(weights * f(a)); })(x);
    return compare_outputs<B>(c, -1, f(x), g);
  };
  if (op == "take_clip" || op == "take_fill" || op == "take_wrap") {
    const auto x = B::template input<T, v, w>(c.in[0]);
    const auto idx = B::template input<I, t>(c.in[1]);
    const auto weights = B::template input<T, t, w>(c.in[2]);
    const auto mode = op == "take_clip"   ? nax::index_mode::clip
                      : op == "take_fill" ? nax::index_mode::fill
                                          : nax::index_mode::wrap;
    return weighted(x, weights, [&](const auto& a) { return nax::take<v>(a, idx, mode); });
  }
  if (op == "take_inner") {
    const auto x = B::template input<T, v, w>(c.in[0]);
    const auto idx = B::template input<I, t>(c.in[1]);
    const auto weights = B::template input<T, v, t>(c.in[2]);
    return weighted(x, weights, [&](const auto& a) { return nax::take<w>(a, idx, nax::index_mode::fill, T(0.5)); });
  }
  if (op == "take_along" || op == "cross_entropy_integer_labels") {
    const auto logits = B::template input<T, b, v>(c.in[0]);
    const auto labels = B::template input<I, b>(c.in[1]);
    const auto weights = B::template input<T, b>(c.in[2]);
    if (op == "take_along") return weighted(logits, weights, [&](const auto& a) { return nax::take_along<v>(a, labels); });
    auto f = [&](const auto& a) { return nax::softmax_cross_entropy_with_integer_labels<v>(a, labels); };
    if (c.name == "cross_entropy_integer_labels_50k_f32") {
      // issue 17: over 50,000 classes in float32 the loss matches JAX to 1e-6 relative
      std::string e = conf::compare(c.out.at(0), B::result(f(logits)), 1e-6);
      if (!e.empty()) return "the loss at 1e-6: " + e;
    }
    return weighted(logits, weights, f);
  }
  const auto x = B::template input<T, v, w>(c.in[0]);
  const auto idx = B::template input<I, t>(c.in[1]);
  const auto u = B::template input<T, t, w>(c.in[2]);
  if (op == "scatter_add" || op == "scatter_add_clip") {
    const auto weights = B::template input<T, v, w>(c.in[3]);
    const auto mode = op == "scatter_add" ? nax::index_mode::fill : nax::index_mode::clip;
    auto f = [&](const auto& a, const auto& q) { return nax::scatter_add<v>(a, idx, q, mode); };
    auto [gx, gu] = nax::grad<0, 1>([&](const auto& a, const auto& q) { return nax::sum(weights * f(a, q)); })(x, u);
    return compare_outputs<B>(c, -1, f(x, u), gx, gu);
  }
  if (op == "scatter_max") return conf::check<B>(c, nax::scatter_max<v>(x, idx, u));
  if (op == "scatter_min") return conf::check<B>(c, nax::scatter_min<v>(x, idx, u));
  if (op == "scatter_set") return conf::check<B>(c, nax::scatter<v>(x, idx, u));
  return "unknown op " + op;
}

template <class B>
std::string run(const Case& c) {
  if (c.op == "one_hot") {
    const auto labels = B::template input<I, b>(c.in[0]);
    return conf::check<B>(c, nax::one_hot<v>(labels, 4));
  }
  return conf::by_dtype<B, float, double>(c.dtype(), [&](auto t) { return run_typed<B, decltype(t)>(c); });
}

}  // namespace conf_index
