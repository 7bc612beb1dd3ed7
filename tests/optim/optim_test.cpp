// nax::optim against plain loops written here (the formulas of optax 0.2.8, element by element),
// over pytrees of several shapes (a Hana struct, a std::vector of a run-time length, a
// std::array, one array), random extents including 0 and 1, float and double; buffer reuse for
// rvalue states; the run-time and alias checks; clip_by_global_norm inside xmap over
// parameters sharded on 4 host devices.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include <nax/optim.hpp>

namespace {
NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(c);
NAX_AXIS(model);
namespace optim = nax::optim;
using nax::index_t;

template <class T>
struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<T, a, b>, w), (nax::Array<T, b>, bias));
};

std::mt19937 rng(1234);
index_t extent() {  // 0 and 1 often
  return std::uniform_int_distribution<index_t>(0, 5)(rng);
}
template <class T, class... As>
nax::Array<T, As...> random_array(std::array<index_t, sizeof...(As)> e, double scale = 1.0) {
  nax::Array<T, As...> x(e);
  std::uniform_real_distribution<double> u(-scale, scale);
  for (index_t k = 0; k < x.size(); ++k) x.data()[k] = static_cast<T>(u(rng));
  return x;
}

// The leaves of a tree, depth-first, as flat vectors.
template <class T, class Tree>
std::vector<std::vector<T>> flat(const Tree& tree) {
  std::vector<std::vector<T>> out;
  nax::tree_reduce(
      [&](int, const auto& leaf) {
        out.emplace_back(leaf.data(), leaf.data() + leaf.size());
        return 0;
      },
      tree, 0);
  return out;
}

// Reference optimizers over flat leaves, in T, with optax's order of operations.
template <class T>
struct Reference {
  using Leaves = std::vector<std::vector<T>>;
  explicit Reference(std::string k) : kind(std::move(k)) {}
  std::string kind;
  Leaves m, v, t;
  std::int64_t count = 0;
  std::vector<bool> decays;  // adamw / lion mask per leaf
  std::function<double(std::int64_t)> lr;

  void init(const Leaves& p, double nu0 = 0) {
    m = v = t = p;
    for (std::size_t l = 0; l < p.size(); ++l) {
      std::fill(m[l].begin(), m[l].end(), T(0));
      std::fill(v[l].begin(), v[l].end(), T(nu0));
      std::fill(t[l].begin(), t[l].end(), T(0));
    }
  }
  void step(Leaves& p, const Leaves& g) {
    const double rate = lr(count);
    const std::int64_t next = count + 1;
    double norm = 0;
    if (kind == "clip_adam") {
      T total = 0;
      for (const auto& leaf : g)
        for (T x : leaf) total += x * x;
      norm = std::sqrt(double(total));
    }
    for (std::size_t l = 0; l < p.size(); ++l)
      for (std::size_t k = 0; k < p[l].size(); ++k) {
        T u = g[l][k];
        T& mu = m[l][k];
        T& nu = v[l][k];
        T& tr = t[l][k];
        T& x = p[l][k];
        if (kind == "adamw" || kind == "clip_adam") {
          if (kind == "clip_adam" && !(T(norm) < T(4.0))) u = (u / T(norm)) * T(4.0);
          mu = T(1 - 0.9) * u + T(0.9) * mu;
          nu = T(1 - 0.999) * (u * u) + T(0.999) * nu;
          const T bc1 = T(1 - std::pow(0.9, double(next))), bc2 = T(1 - std::pow(0.999, double(next)));
          T up = (mu / bc1) / (std::sqrt(nu / bc2 + T(0)) + T(1e-8));
          if (kind == "adamw" && decays[l]) up = up + T(0.1) * x;
          x = x + T(-rate) * up;
        } else if (kind == "sgd_nesterov") {
          tr = u + T(0.9) * tr;
          x = x + T(-rate) * (u + T(0.9) * tr);
        } else if (kind == "rmsprop_centered_momentum") {
          mu = T(1 - 0.8) * u + T(0.8) * mu;
          nu = T(1 - 0.8) * (u * u) + T(0.8) * nu;
          T up = (T(1) / std::sqrt(nu - mu * mu + T(1e-8))) * u;
          up = T(-rate) * up;
          tr = up + T(0.5) * tr;
          x = x + tr;
        } else if (kind == "lion") {
          const T s = T(1 - 0.9) * u + T(0.9) * mu;
          T up = s > 0 ? T(1) : s < 0 ? T(-1) : s;
          mu = T(1 - 0.99) * u + T(0.99) * mu;
          if (decays[l]) up = up + T(0.01) * x;
          x = x + T(-rate) * up;
        } else if (kind == "clip_decay") {
          u = std::min(std::max(u, T(-0.5)), T(0.5));
          x = x + T(-0.1) * (u + T(0.2) * x);
        } else {
          FAIL("unknown reference " << kind);
        }
      }
    count = next;
  }
};

template <class T>
void check_close(const std::vector<std::vector<T>>& got, const std::vector<std::vector<T>>& want, const char* what) {
  const double rtol = std::is_same_v<T, float> ? 2e-6 : 1e-13;
  REQUIRE(got.size() == want.size());
  for (std::size_t l = 0; l < got.size(); ++l) {
    REQUIRE(got[l].size() == want[l].size());
    for (std::size_t k = 0; k < got[l].size(); ++k)
      REQUIRE_MESSAGE(std::abs(double(got[l][k]) - double(want[l][k])) <= rtol * (std::abs(double(want[l][k])) + 1e-3),
                      what << ": leaf " << l << " element " << k << ": " << got[l][k] << " vs loop " << want[l][k]);
  }
}

// `steps` steps of opt on params (a tree) with random gradients of the same shape, against ref;
// even steps through update + apply_updates with lvalues, odd ones (float) through
// update_and_apply with rvalues (the state's and parameters' buffers reused).
template <class T, class Opt, class Tree, class MakeGrads>
void run_against(const char* what, const Opt& opt, Tree params, const MakeGrads& make_grads, Reference<T> ref,
                 double nu0 = 0, int steps = 6) {
  auto p_ref = flat<T>(params);
  ref.init(p_ref, nu0);
  auto state = opt.init(params);
  for (int s = 0; s < steps; ++s) {
    auto grads = make_grads();
    ref.step(p_ref, flat<T>(grads));
    // (update_and_apply for float only: each way is a set of fused loops to compile, and CI's
    // compile time is short; the conformance test runs both ways in both types.)
    if (!std::is_same_v<T, float> || s % 2 == 0) {
      auto [u, next] = opt.update(grads, state, params);
      params = optim::apply_updates(params, u);
      state = std::move(next);
    } else if constexpr (std::is_same_v<T, float>) {
      auto [p, next] = optim::update_and_apply(opt, grads, std::move(state), std::move(params));
      params = std::move(p);
      state = std::move(next);
    }
    check_close(flat<T>(params), p_ref, what);
  }
}

template <class T>
Layer<T> random_layer(index_t n, index_t m, double scale = 1.0) {
  return {random_array<T, a, b>({n, m}, scale), random_array<T, b>({m}, scale)};
}

template <class T>
void reference_cases() {
  const auto sched = optim::warmup_cosine_decay_schedule(0.0, 0.05, 2, 6, 0.001);
  for (int trial = 0; trial < 3; ++trial) {
    const index_t n = extent(), m = extent();
    CAPTURE(n);
    CAPTURE(m);
    {  // adamw with a schedule and a predicate mask (matrices decay, biases do not), on a struct
      auto matrices = [](const auto& leaf) { return std::remove_cvref_t<decltype(leaf)>::axes_type::size == 2; };
      Reference<T> ref("adamw");
      ref.decays = {true, false};
      ref.lr = sched;
      run_against<T>("adamw", optim::adamw(sched, 0.9, 0.999, 1e-8, 0.0, 0.1, matrices), random_layer<T>(n, m),
                     [&] { return random_layer<T>(n, m); }, ref);
    }
    {  // clip_by_global_norm then adam, on a std::array of structs
      Reference<T> ref("clip_adam");
      ref.lr = [](std::int64_t) { return 0.01; };
      auto make = [&] { return std::array<Layer<T>, 2>{random_layer<T>(n, m), random_layer<T>(m, n)}; };
      run_against<T>("clip_by_global_norm + adam", optim::chain(optim::clip_by_global_norm(4.0), optim::adam(0.01)),
                     make(), [&] { return std::array<Layer<T>, 2>{random_layer<T>(n, m, 2.0), random_layer<T>(m, n, 2.0)}; },
                     ref);
    }
    {  // sgd with nesterov momentum on a std::vector of a run-time length (0 included)
      const index_t len = extent();
      auto make = [&] {
        std::vector<nax::Array<T, a>> v;
        for (index_t k = 0; k < len; ++k) v.push_back(random_array<T, a>({(n + k) % 4}));
        return v;
      };
      Reference<T> ref("sgd_nesterov");
      ref.lr = optim::exponential_decay(0.1, 2, 0.5);
      run_against<T>("sgd nesterov", optim::sgd(optim::exponential_decay(0.1, 2, 0.5), 0.9, true), make(), make, ref);
    }
    {  // centered rmsprop with momentum, one array
      Reference<T> ref("rmsprop_centered_momentum");
      ref.lr = [](std::int64_t) { return 0.01; };
      auto make = [&] { return random_array<T, a, b>({n, m}); };
      run_against<T>("rmsprop", optim::rmsprop<true, true>(0.01, 0.8, 1e-8, 0.3, 0.5), make(), make, ref, 0.3);
    }
    {  // lion with a tree mask, on a tuple
      Reference<T> ref("lion");
      ref.decays = {false, true};
      ref.lr = [](std::int64_t) { return 0.001; };
      auto make = [&] { return std::make_tuple(random_array<T, a>({n}), random_array<T, b, a>({m, n})); };
      run_against<T>("lion", optim::lion(0.001, 0.9, 0.99, 0.01, std::make_tuple(false, true)), make(), make, ref);
    }
  }
}

}  // namespace

TEST_CASE("optim: optimizers against plain loops, float") { reference_cases<float>(); }
TEST_CASE("optim: optimizers against plain loops, double") { reference_cases<double>(); }

TEST_CASE("optim: clip and add_decayed_weights on a std::vector of structs against a loop") {
  auto make = [] {
    std::vector<Layer<float>> v;
    v.push_back(random_layer<float>(3, 2));
    v.push_back(random_layer<float>(1, 0));
    v.push_back(random_layer<float>(2, 5));
    return v;
  };
  Reference<float> ref("clip_decay");
  ref.lr = [](std::int64_t) { return 0.0; };
  run_against<float>("clip + add_decayed_weights", optim::chain(optim::clip(0.5), optim::add_decayed_weights(0.2), optim::scale(-0.1)),
                     make(), make, ref);
}

TEST_CASE("optim: an rvalue state and rvalue gradients give their buffers; the numbers are the same") {
  auto opt = optim::adam(0.1);
  Layer<float> p = random_layer<float>(4, 3);
  Layer<float> g = random_layer<float>(4, 3);
  auto s = opt.init(p);
  auto [u1, s1] = opt.update(g, s, p);  // lvalues: new arrays
  CHECK(std::get<0>(s1).mu.w.data() != std::get<0>(s).mu.w.data());
  const float* mu = std::get<0>(s).mu.w.data();
  const float* nu = std::get<0>(s).nu.bias.data();
  const float* gw = g.w.data();
  Layer<float> g2 = g;
  auto [u2, s2] = opt.update(std::move(g2), std::move(s), p);  // rvalues: reused in place
  CHECK(std::get<0>(s2).mu.w.data() == mu);
  CHECK(std::get<0>(s2).nu.bias.data() == nu);
  CHECK(u2.w.data() != gw);  // g2's buffer (a copy of g), not g's
  CHECK(flat<float>(u1) == flat<float>(u2));
  CHECK(flat<float>(std::get<0>(s1).nu) == flat<float>(std::get<0>(s2).nu));
  CHECK(std::get<0>(s2).count.item() == 1);
  const float* pw = p.w.data();
  auto [p3, s3] = optim::update_and_apply(opt, g, std::move(s2), std::move(p));
  CHECK(p3.w.data() == pw);  // the parameters updated in their own buffer
  CHECK(std::get<0>(s3).count.item() == 2);
}

TEST_CASE("optim: the step count saturates at INT32_MAX, as optax's safe_increment") {
  auto opt = optim::scale_by_adam();
  nax::Array<double, a> p = nax::ones<double, a>(2);
  auto s = opt.init(p);
  s.count.data()[0] = INT32_MAX;
  auto [u, s2] = opt.update(p, s, p);
  CHECK(s2.count.item() == INT32_MAX);
  CHECK(std::isfinite(u(0)));
}

TEST_CASE("optim: mismatched extents raise shape_error naming the leaf's axes and extents") {
  auto opt = optim::adamw(0.1);
  Layer<float> p = random_layer<float>(4, 3);
  auto s = opt.init(p);
  Layer<float> g = random_layer<float>(4, 2);
  std::string message;
  try {
    (void)opt.update(g, s, p);
  } catch (const nax::shape_error& e) {
    message = e.what();
  }
  CHECK(message.find("leaf 0") != std::string::npos);
  CHECK(message.find("(a = 4, b = 3)") != std::string::npos);
  CHECK(message.find("(a = 4, b = 2)") != std::string::npos);
  // a state made for other parameters
  auto other = opt.init(random_layer<float>(5, 3));
  CHECK_THROWS_AS((void)opt.update(p, other, p), nax::shape_error);
  // std::vectors of different lengths
  std::vector<nax::Array<float, a>> v(2, nax::ones<float, a>(3)), w(3, nax::ones<float, a>(3));
  auto vs = optim::sgd(0.1, 0.9).init(v);
  CHECK_THROWS_AS((void)optim::sgd(0.1, 0.9).update(w, vs, v), nax::shape_error);
}

TEST_CASE("optim: a fused pass whose output aliases an input at other elements goes through temporaries") {
  // x = x^T (a, b swapped by name) and y = x + 1 in one pass: x is read transposed.
  auto x = random_array<float, a, b>({3, 3});
  const auto before = x;
  nax::Array<float, a, b> y({3, 3});
  auto xt = nax::rename<c, b>(nax::rename<b, a>(nax::rename<a, c>(before.view())));
  auto xt_alias = nax::rename<c, b>(nax::rename<b, a>(nax::rename<a, c>(std::as_const(x).view())));
  optim::detail::fused_assign(std::tie(x, y), nax::detail::as_expr(xt_alias), nax::detail::as_expr(xt_alias + 1.f));
  nax::Array<float, a, b> want = xt;
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 3; ++j) {
      CHECK(x(i, j) == want(i, j));
      CHECK(y(i, j) == want(i, j) + 1.f);
    }
}

TEST_CASE("optim: clip_by_global_norm<model axis> + adamw inside xmap on parameters sharded over 4 devices") {
  // w (a, b) sharded along a over the 4 devices, bias (b) replicated; the same step outside
  // xmap on the whole arrays is the reference.
  const index_t n = 8, m = 3;
  auto params = std::make_tuple(random_array<double, a, b>({n, m}), random_array<double, b>({m}));
  auto grads = std::make_tuple(random_array<double, a, b>({n, m}, 2.0), random_array<double, b>({m}, 2.0));
  auto sharded = optim::chain(optim::clip_by_global_norm<a>(1.0), optim::adamw(0.1, 0.9, 0.999, 1e-8, 0.0, 0.01));
  auto state = optim::as_tuples(sharded.init(params));
  nax::Mesh<model> mesh(nax::host::devices(4), {4});
  auto step = nax::xmap<nax::bind<a, model>>(
      [&](const auto& p, const auto& g, const auto& s) {
        auto [u, s2] = sharded.update(g, s, p);
        return nax::tuple(optim::apply_updates(p, u), s2);
      },
      mesh);
  auto [p_mapped, s_mapped] = step(params, grads, state);
  auto [u_whole, s_whole] = sharded.update(grads, state, params);
  auto p_whole = optim::apply_updates(params, u_whole);
  check_close(flat<double>(p_mapped), flat<double>(p_whole), "xmap vs whole");
  const auto& adam_mapped = std::get<0>(std::get<1>(s_mapped));  // (count, mu, nu)
  const auto& adam_whole = std::get<0>(std::get<1>(s_whole));
  check_close(flat<double>(std::get<1>(adam_mapped)), flat<double>(std::get<1>(adam_whole)), "mu, xmap vs whole");
  check_close(flat<double>(std::get<2>(adam_mapped)), flat<double>(std::get<2>(adam_whole)), "nu, xmap vs whole");
  CHECK(std::get<0>(adam_mapped).item() == 1);
  // The clip acted, with the global norm (each device's shard alone has a smaller norm, which
  // would give other numbers than the whole arrays' step above).
  double squares = 0;
  for (const auto& leaf : flat<double>(grads))
    for (double x : leaf) squares += x * x;
  CHECK(std::sqrt(squares) > 2.0);
}
