// Conformance with JAX, family `tape` (tests/conformance/data/tape/, generate.py's family_tape):
// value_and_grad of a deep tanh MLP whose forward pass is a loop that evaluates each layer
// (JAX: a Python loop), and of an RNN whose recurrence is a C++ for loop (JAX: lax.scan), from
// the same threefry-drawn parameters, float32 and float64 (relative error 1e-5 / 1e-6).
#include <array>
#include <boost/hana/define_struct.hpp>

#include "../conformance/conformance.hpp"

namespace {
NAX_AXIS(ex);
NAX_AXIS(feat);
NAX_AXIS(hid);
NAX_AXIS(st);
NAX_AXIS(step);
using conf::Case;

template <class T>
struct Dense {
  BOOST_HANA_DEFINE_STRUCT(Dense, (nax::Array<T, feat, hid>, w), (nax::Array<T, hid>, b));
};

// Each output against JAX's relative to the output's largest element (conf::compare_scaled):
// the gradients pass through 8 layers (16 time steps) forward and back, nax's GEMM sums in
// another order than XLA's, and a weight gradient's elements span orders of magnitude
// (measured, float32: an element of 2.8e-6 off by 2e-10, in an array whose largest element is
// 1e-3: 8e-5 relative to itself, 2e-7 to the array's scale).
// Outputs first, first + 1, ... against the arrays.
template <class... A>
std::string compare_from(const Case& c, std::size_t first, const A&... got) {
  std::string e;
  std::size_t k = first;
  auto one = [&](const auto& g) {
    if (e.empty()) e = conf::compare_scaled(c.out.at(k), g);
    if (!e.empty() && e.rfind("output", 0) != 0) e = "output " + std::to_string(k) + ": " + e;
    ++k;
  };
  (one(got), ...);
  return e;
}

template <class T, std::size_t Depth>
std::string run_deep_mlp(const Case& c) {
  std::array<Dense<T>, Depth> layers;
  for (std::size_t l = 0; l < Depth; ++l) {
    layers[l].w = conf::to_array<T, feat, hid>(c.in.at(2 * l));
    layers[l].b = conf::to_array<T, hid>(c.in.at(2 * l + 1));
  }
  auto x = conf::to_array<T, ex, feat>(c.in.at(2 * Depth));
  auto loss = [&](const auto& ls) {
    nax::Array<T, ex, feat> h = x;
    for (const auto& l : ls) h = nax::rename<hid, feat>(nax::tanh(nax::dot<feat>(h, l.w) + l.b));
    return nax::mean(nax::square(std::move(h)));
  };
  auto [v, g] = nax::value_and_grad(loss)(layers);
  std::string e = compare_from(c, 0, v);
  for (std::size_t l = 0; l < Depth && e.empty(); ++l) e = compare_from(c, 1 + 2 * l, g[l].w, g[l].b);
  return e;
}

template <class T>
std::string run_rnn(const Case& c) {
  auto wh = conf::to_array<T, st, hid>(c.in.at(0));
  auto wx = conf::to_array<T, feat, hid>(c.in.at(1));
  auto xs = conf::to_array<T, step, ex, feat>(c.in.at(2));
  auto loss = [&](const auto& recurrent, const auto& input) {
    nax::Array<T, ex, st> h({xs.template extent<ex>(), wh.template extent<st>()});
    for (nax::index_t t = 0; t < xs.template extent<step>(); ++t) {
      auto x_t = nax::sum<step>(nax::slice<step>(xs, t, t + 1));
      h = nax::rename<hid, st>(nax::tanh(nax::dot<st>(h, recurrent) + nax::dot<feat>(x_t, input)));
    }
    return nax::sum(nax::square(std::move(h)));
  };
  auto [v, g] = nax::value_and_grad<0, 1>(loss)(wh, wx);
  return compare_from(c, 0, v, std::get<0>(g), std::get<1>(g));
}

template <class T>
std::string run_typed(const Case& c) {
  if (c.op == "rnn") return run_rnn<T>(c);
  if (c.op == "deep_mlp" && c.integer("depth") == 8) return run_deep_mlp<T, 8>(c);
  if (c.op == "deep_mlp" && c.integer("depth") == 3) return run_deep_mlp<T, 3>(c);
  return "unknown op " + c.op + " (depth " + (c.has("depth") ? c.param("depth") : "-") + ")";
}

std::string run(const Case& c) {
  if (c.dtype() == "float32") return run_typed<float>(c);
  if (c.dtype() == "float64") return run_typed<double>(c);
  return "unknown dtype " + c.dtype();
}

}  // namespace

TEST_CASE("conformance tape: a deep MLP as a loop of evaluations and an RNN as a for loop, against JAX") {
  const auto cases = conf::load_family("tape");
  const auto t = conf::run_family(cases, run, "tape");
  CHECK(t.run == 8);
  CHECK(t.passed == 8);
}
