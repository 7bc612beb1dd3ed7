// grad and value_and_grad on device arrays against the host backend's, on random extents (0
// and 1 included) in double precision: the JAX programs' linear and logistic losses, a two-layer
// MLP with a Hana-struct pytree, elementwise chains with where, every differentiable
// reduction (max with ties), relayouts (transpose, slice: the scatter path, rename,
// broadcast), argnums, vmap(grad) for per-example gradients, and grad(grad) of tanh.
// The host's gradients are themselves checked against finite differences (tests/autodiff).
#include "device_support.hpp"

#include <boost/hana/define_struct.hpp>

namespace {
NAX_AXIS(ex);
NAX_AXIS(in);
NAX_AXIS(hid);
NAX_AXIS(out);
using namespace nax_cuda_test;
using nax::index_t;

constexpr double tol = 1e-9;

template <class T, class... As>
void check_device(const nax::cuda::Array<T, As...>& device_result, const nax::Array<T, As...>& host_result) {
  check_same(nax::cuda::to_host(device_result), host_result, tol);
}

template <class W1, class B1, class W2>
struct Mlp {
  BOOST_HANA_DEFINE_STRUCT(Mlp, (W1, w1), (B1, b1), (W2, w2));
};

auto linear_loss = [](const auto& w, const auto& b, const auto& x, const auto& y) {
  return nax::mean(nax::square(nax::dot<in>(x, w) + b - y));
};
auto logistic_loss = [](const auto& w, const auto& b, const auto& x, const auto& y) {
  return -nax::mean(nax::log_sigmoid(y * (nax::dot<in>(x, w) + b)));
};
auto mlp_loss = [](const auto& p, const auto& x, const auto& y) {
  auto h = nax::tanh(nax::dot<in>(x, p.w1) + p.b1);
  return nax::mean(nax::square(nax::dot<hid>(h, p.w2) - y));
};
}  // namespace

TEST_CASE("cuda grad: the JAX programs' linear and logistic losses match the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 6; ++trial) {
    const index_t n = random_extent() + 1, f = random_extent() + 1;
    auto x = random_array<double, ex, in>({n, f});
    auto y = random_array<double, ex>({n});
    auto w = random_array<double, in>({f});
    auto b = random_array<double>({});
    auto dx = nax::cuda::to_device(x);
    auto dy = nax::cuda::to_device(y);
    auto dw = nax::cuda::to_device(w);
    auto db = nax::cuda::to_device(b);
    {
      auto [hv, hg] = nax::value_and_grad<0, 1>(linear_loss)(w, b, x, y);
      auto [dv, dg] = nax::value_and_grad<0, 1>(linear_loss)(dw, db, dx, dy);
      static_assert(std::is_same_v<decltype(dv), nax::cuda::Array<double>>);
      check_device(dv, hv);
      check_device(std::get<0>(dg), std::get<0>(hg));
      check_device(std::get<1>(dg), std::get<1>(hg));
    }
    {
      auto hy = nax::Array<double, ex>(nax::where(y > 0.0, 1.0, -1.0));
      auto dys = nax::cuda::to_device(hy);
      auto hg = nax::grad<0, 1>(logistic_loss)(w, b, x, hy);
      auto dg = nax::grad<0, 1>(logistic_loss)(dw, db, dx, dys);
      check_device(std::get<0>(dg), std::get<0>(hg));
      check_device(std::get<1>(dg), std::get<1>(hg));
    }
  }
}

TEST_CASE("cuda grad: a two-layer MLP over a Hana-struct pytree matches the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 4; ++trial) {
    const index_t n = random_extent(), f = random_extent() + 1, h = random_extent() + 1, o = random_extent() + 1;
    auto x = random_array<double, ex, in>({n, f});
    auto y = random_array<double, ex, out>({n, o});
    Mlp<nax::Array<double, in, hid>, nax::Array<double, hid>, nax::Array<double, out, hid>> hp{
        random_array<double, in, hid>({f, h}), random_array<double, hid>({h}), random_array<double, out, hid>({o, h})};
    Mlp<nax::cuda::Array<double, in, hid>, nax::cuda::Array<double, hid>, nax::cuda::Array<double, out, hid>> dp{
        nax::cuda::to_device(hp.w1), nax::cuda::to_device(hp.b1), nax::cuda::to_device(hp.w2)};
    auto hg = nax::grad(mlp_loss)(hp, x, y);
    auto dg = nax::grad(mlp_loss)(dp, nax::cuda::to_device(x), nax::cuda::to_device(y));
    check_device(dg.w1, hg.w1);
    check_device(dg.b1, hg.b1);
    check_device(dg.w2, hg.w2);
  }
}

TEST_CASE("cuda grad: elementwise chains, reductions and relayouts match the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 6; ++trial) {
    const index_t ni = random_extent() + 2, nj = random_extent() + 1;
    auto x = random_array<double, ex, in>({ni, nj});
    // Ties for max: values on a coarse grid.
    nax::Array<double, ex, in> coarse = x;
    for (auto& v : coarse) v = std::round(v * 2.0) * 0.5;
    auto dx = nax::cuda::to_device(x);
    auto dcoarse = nax::cuda::to_device(coarse);
    auto chain = [](const auto& a) {
      auto t = nax::tanh(a) * nax::exp(-a * a) / (1.0 + a * a);
      return nax::sum(nax::where(a > 0.0, t, nax::sin(a) * 3.0));
    };
    check_device(nax::grad(chain)(dx), nax::grad(chain)(x));
    auto reductions = [](const auto& a) {
      return nax::sum(nax::logsumexp<in>(a)) + nax::mean(nax::max<ex>(a)) + nax::sum(nax::prod<in>(a * 0.1 + 1.0)) +
             nax::mean(a);
    };
    check_device(nax::grad(reductions)(dcoarse), nax::grad(reductions)(coarse));
    auto relayouts = [ni](const auto& a) {
      auto part = nax::slice<ex>(a, 1, ni - 1);  // the scatter of a part back into the whole
      auto t = nax::transpose<in, ex>(part);
      return nax::sum(nax::square(t) * nax::rename<ex, out>(nax::sum<in>(a))) + nax::sum(nax::broadcast_to<ex, in, hid>(a, {ni, a.template extent<in>(), 3}));
    };
    check_device(nax::grad(relayouts)(dx), nax::grad(relayouts)(x));
  }
}

TEST_CASE("cuda grad: vmap(grad) gives per-example gradients; grad(grad(tanh))") {
  if (no_device()) return;
  const index_t n = 7, f = 5;
  auto x = random_array<double, ex, in>({n, f});
  auto y = random_array<double, ex>({n});
  auto w = random_array<double, in>({f});
  auto dx = nax::cuda::to_device(x);
  auto dy = nax::cuda::to_device(y);
  auto dw = nax::cuda::to_device(w);
  auto per_example = [](const auto& w_) {
    return [&w_](const auto& xe, const auto& ye) {
      return nax::grad([&](const auto& q) { return nax::square(nax::dot<in>(xe, q) - ye); })(w_);
    };
  };
  nax::Array<double, ex, in> host = nax::vmap<ex>(per_example(w))(x, y);
  nax::cuda::Array<double, ex, in> device = nax::vmap<ex>(per_example(dw))(dx, dy);
  check_device(device, host);

  auto second = nax::grad(nax::grad([](const auto& a) { return nax::tanh(a); }));
  nax::Array<double> at = random_array<double>({});
  check_device(second(nax::cuda::to_device(at)), second(at));
}
