// Conformance with optax, family `optim` (tests/conformance/data/optim/, generate.py's
// family_optim, optax 0.2.8 on jax 0.10.2 with x64): every optimizer, transform and schedule of
// nax::optim, float32 and float64, the parameters (a tuple (w, b)) after 1, 2 and 10 steps of
// recorded gradients, against optax's. Tolerances: the suite's (1e-5 float32, 1e-6 float64,
// relative); the measured worst errors are printed per dtype.
#include <functional>
#include <map>

#include <nax/optim.hpp>

#include "../conformance/conformance.hpp"

namespace {
NAX_AXIS(row);
NAX_AXIS(col);
namespace optim = nax::optim;
using conf::Case;

// JAX's (w (3, 4), b (5,)); b is held as (5, 1) so that both leaves have one type (each leaf
// type is a fused loop per optimizer to compile; rank-1 leaves are in optim_test.cpp).
template <class T>
using Leaf = nax::Array<T, row, col>;
template <class T>
using Params = std::tuple<Leaf<T>, Leaf<T>>;

template <class T>
Leaf<T> column(const npy::Array& a) {  // a (5,) input as (5, 1)
  const auto v = a.values<T>();
  Leaf<T> x({static_cast<nax::index_t>(v.size()), 1});
  std::copy(v.begin(), v.end(), x.data());
  return x;
}

double worst_f32 = 0, worst_f64 = 0;

// max over elements of |nax - optax| / max(|optax|, tiny)
template <class T, class... As>
std::string compare_tracked(const npy::Array& want_file, const nax::Array<T, As...>& got, const std::string& what) {
  const auto want = want_file.values<T>();
  if (static_cast<nax::index_t>(want.size()) != got.size()) return what + ": sizes differ from optax's";
  const double rtol = std::is_same_v<T, float> ? conf::rtol_f32 : conf::rtol_f64;
  double& worst = std::is_same_v<T, float> ? worst_f32 : worst_f64;
  for (nax::index_t k = 0; k < got.size(); ++k) {
    const double w = double(want[k]), g = double(got.data()[k]);
    const double err = std::abs(g - w) / std::max(std::abs(w), 1e-30);
    worst = std::max(worst, std::abs(w) < 1e-30 ? std::abs(g - w) : err);
    if (!(std::abs(g - w) <= rtol * std::abs(w) + 1e-30))
      return what + ": element " + std::to_string(k) + " is " + std::to_string(g) + ", optax " + std::to_string(w);
  }
  return "";
}

template <class T>
auto step_grads(const Case& c, nax::index_t k) {
  // the gradients of step k: slices of the (10, 3, 4) and (10, 5) inputs
  const npy::Array& aw = c.in.at(2);
  const npy::Array& ab = c.in.at(3);
  const auto vw = aw.values<T>();
  const auto vb = ab.values<T>();
  Leaf<T> w({aw.shape[1], aw.shape[2]});
  Leaf<T> b({ab.shape[1], 1});
  std::copy_n(vw.begin() + k * w.size(), w.size(), w.data());
  std::copy_n(vb.begin() + k * b.size(), b.size(), b.data());
  return Params<T>{std::move(w), std::move(b)};
}

// Runs opt for 10 steps, update + apply_updates (optax's loop), and with Both also
// update_and_apply (the fused step), and compares with optax after steps 1, 2 and 10. (Each
// optimizer type and way is a set of fused loops to compile: CI's compile time decides which
// configurations run both ways.)
template <class T, bool Both = false, class Opt>
std::string run_optimizer(const Case& c, const Opt& opt) {
  for (int fused = 0; fused < (Both ? 2 : 1); ++fused) {
    Params<T> params{conf::to_array<T, row, col>(c.in.at(0)), column<T>(c.in.at(1))};
    auto state = opt.init(params);
    std::size_t out = 0;
    for (nax::index_t k = 0; k < 10; ++k) {
      auto grads = step_grads<T>(c, k);
      auto plain = [&] {
        auto [u, s] = opt.update(grads, state, params);
        params = optim::apply_updates(params, u);
        state = std::move(s);
      };
      if constexpr (Both) {
        if (fused) {
          auto [p, s] = optim::update_and_apply(opt, grads, std::move(state), std::move(params));
          params = std::move(p);
          state = std::move(s);
        } else {
          plain();
        }
      } else {
        plain();
      }
      if (k == 0 || k == 1 || k == 9) {
        const std::string what = std::string(fused ? "update_and_apply" : "update") + ", step " + std::to_string(k + 1);
        std::string e = compare_tracked(c.out.at(out), std::get<0>(params), what + ", w");
        if (e.empty()) e = compare_tracked(c.out.at(out + 1), std::get<1>(params), what + ", b");
        if (!e.empty()) return e;
        out += 2;
      }
    }
    if (c.out.size() > 6) {  // scale_by_adam: its moments and count after step 10
      if constexpr (requires { state.mu; }) {
        std::string e = compare_tracked(c.out.at(6), std::get<0>(state.mu), "mu.w");
        if (e.empty()) e = compare_tracked(c.out.at(7), std::get<1>(state.mu), "mu.b");
        if (e.empty()) e = compare_tracked(c.out.at(8), std::get<0>(state.nu), "nu.w");
        if (e.empty()) e = compare_tracked(c.out.at(9), std::get<1>(state.nu), "nu.b");
        if (e.empty() && c.out.at(10).as_int(0) != state.count.item()) e = "count differs";
        if (!e.empty()) return e;
      } else {
        return "the case has moments and this optimizer no .mu";
      }
    }
  }
  return "";
}

// The same configurations as generate.py's optim_configs.
const optim::warmup_cosine_decay_schedule example_schedule(0.0, 0.05, 3, 10, 0.005);
// The sgd-with-a-schedule cases share one type (a schedule is any callable).
using any_schedule = std::function<double(std::int64_t)>;

template <class T>
std::string run_named(const Case& c) {
  const std::string& name = c.param("opt");
  auto is = [&](const char* n) { return name == n; };
  // adamw's mask: a tree of bools, and (same numbers) a predicate on the leaf.
  const std::tuple<bool, bool> mask{true, false};
  if (is("sgd")) return run_optimizer<T>(c, optim::sgd(0.1));
  if (is("sgd_momentum")) return run_optimizer<T>(c, optim::sgd(0.1, 0.9));
  if (is("sgd_nesterov")) return run_optimizer<T, true>(c, optim::sgd(0.1, 0.9, true));
  if (is("adam")) return run_optimizer<T>(c, optim::adam(0.01));
  if (is("adam_eps_root")) return run_optimizer<T>(c, optim::adam(0.02, 0.8, 0.99, 1e-6, 1e-3));
  if (is("adamw")) return run_optimizer<T>(c, optim::adamw(0.01, 0.9, 0.999, 1e-8, 0.0, 0.1));
  if (is("adamw_mask")) {
    std::string e = run_optimizer<T, true>(c, optim::adamw(0.01, 0.9, 0.999, 1e-8, 0.0, 0.1, mask));
    auto matrices = [](const auto& p) { return p.template extent<col>() > 1; };  // w, not b
    if (e.empty()) e = run_optimizer<T>(c, optim::adamw(0.01, 0.9, 0.999, 1e-8, 0.0, 0.1, matrices));
    return e;
  }
  if (is("adamw_schedule_clip"))
    return run_optimizer<T, true>(c, optim::chain(optim::clip_by_global_norm(7.0),
                                            optim::adamw(example_schedule, 0.9, 0.999, 1e-8, 0.0, 0.01)));
  if (is("rmsprop")) return run_optimizer<T>(c, optim::rmsprop(0.01));
  if (is("rmsprop_centered")) return run_optimizer<T>(c, optim::rmsprop<true>(0.01, 0.8, 1e-8, 0.1));
  if (is("rmsprop_momentum")) return run_optimizer<T, true>(c, optim::rmsprop<false, true>(0.01, 0.9, 1e-8, 0.0, 0.9, true));
  if (is("lion")) return run_optimizer<T>(c, optim::lion(0.001, 0.9, 0.99, 0.01));
  if (is("clip_by_global_norm")) return run_optimizer<T>(c, optim::chain(optim::clip_by_global_norm(7.0), optim::scale(-0.1)));
  if (is("clip")) return run_optimizer<T>(c, optim::chain(optim::clip(1.5), optim::scale(-0.1)));
  if (is("add_decayed_weights"))
    return run_optimizer<T>(c, optim::chain(optim::add_decayed_weights(0.5), optim::scale(-0.1)));
  if (is("scale_by_adam")) return run_optimizer<T>(c, optim::scale_by_adam());
  if (is("scale_by_schedule")) return run_optimizer<T>(c, optim::scale_by_schedule(optim::exponential_decay(-0.1, 3, 0.5)));
  if (is("sgd_linear")) return run_optimizer<T>(c, optim::sgd(any_schedule(optim::linear_schedule{0.2, 0.01, 5, 2})));
  if (is("sgd_cosine")) return run_optimizer<T>(c, optim::sgd(any_schedule(optim::cosine_decay_schedule(0.1, 8, 0.1, 2.0))));
  if (is("sgd_warmup_cosine")) return run_optimizer<T>(c, optim::sgd(any_schedule(example_schedule)));
  if (is("sgd_exponential")) return run_optimizer<T>(c, optim::sgd(any_schedule(optim::exponential_decay(0.1, 2, 0.7, 1, true, 0.05))));
  if (is("sgd_piecewise")) return run_optimizer<T>(c, optim::sgd(any_schedule(optim::piecewise_constant_schedule(0.1, {{2, 0.5}, {5, 0.1}}))));
  return "unknown optimizer " + name;
}

std::string conf_show(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string run_schedule(const Case& c) {
  const std::string& name = c.param("schedule");
  std::function<double(std::int64_t)> fn;
  if (name == "constant") fn = optim::constant_schedule{0.3};
  else if (name == "linear") fn = optim::linear_schedule{0.2, 0.01, 5, 2};
  else if (name == "polynomial") fn = optim::polynomial_schedule{1.0, 0.1, 2.0, 10, 3};
  else if (name == "cosine") fn = optim::cosine_decay_schedule(0.1, 8, 0.1, 2.0);
  else if (name == "cosine_plain") fn = optim::cosine_decay_schedule(1.0, 25);
  else if (name == "warmup_cosine") fn = optim::warmup_cosine_decay_schedule(0.0, 0.05, 3, 10, 0.005);
  else if (name == "warmup_cosine_exp") fn = optim::warmup_cosine_decay_schedule(0.01, 1.0, 5, 30, 0.1, 1.5);
  else if (name == "exponential") fn = optim::exponential_decay(0.1, 3, 0.5);
  else if (name == "exponential_stair_end") fn = optim::exponential_decay(0.1, 2, 0.7, 1, true, 0.05);
  else if (name == "exponential_growth_end") fn = optim::exponential_decay(0.1, 4, 1.5, 0, false, 0.3);
  else if (name == "piecewise") fn = optim::piecewise_constant_schedule(0.1, {{2, 0.5}, {5, 0.1}, {9, 2.0}});
  else return "unknown schedule " + name;
  const auto want = c.out.at(0).values<double>();
  for (std::size_t k = 0; k < want.size(); ++k) {
    const double got = fn(static_cast<std::int64_t>(k));
    if (!(std::abs(got - want[k]) <= 1e-12 * std::abs(want[k]) + 1e-300))
      return "count " + std::to_string(k) + ": " + conf_show(got) + ", optax " + conf_show(want[k]);
  }
  return "";
}

}  // namespace

TEST_CASE("optim: optimizers, transforms and schedules against optax 0.2.8") {
  const auto cases = conf::load_family("optim");
  auto t = conf::run_family(cases, [](const Case& c) -> std::string {
    if (c.op == "schedule") return run_schedule(c);
    if (c.dtype() == "float32") return run_named<float>(c);
    if (c.dtype() == "float64") return run_named<double>(c);
    return "unknown dtype";
  }, "optim");
  CHECK(t.run == 55);
  CHECK(t.passed == t.run);
  MESSAGE("largest relative error against optax: float32 " << worst_f32 << ", float64 " << worst_f64);
}
