// Conformance with JAX, family `grad` (data/grad/), grad composed with the maps, float64:
// vmap(grad(loss), in_axes=(None, 0, 0)) per-example gradients of the JAX programs' two losses, and the
// pmap case of JAX issue 3970 on 4 host devices: value_and_grad of pmean of the devices' losses
// w.r.t. replicated params is the single-device gradient of the mean loss. JAX computes the
// latter with jax.shard_map; jax.pmap (0.10.2) returns each device's gradient of its own loss
// instead (stored as outputs 5-6, not compared; README.md). Models: grad.hpp.
#include "grad.hpp"

namespace {

using namespace conf_grad;
using T = double;

std::string run(const Case& c) {
  const auto& in_ = c.in;
  if (c.op != "vmap_grad_linear" && c.op != "vmap_grad_logistic" && c.op != "pmean_grad") return conf::skip();
  if (c.dtype() != "float64") return "unexpected dtype " + c.dtype();
  if (c.op == "vmap_grad_linear") {
    auto params = nax::tuple(conf::to_array<T, in, out>(in_[0]), conf::to_array<T, out>(in_[1]));
    auto x = conf::to_array<T, ex, in>(in_[2]);
    auto y = conf::to_array<T, ex, out>(in_[3]);
    auto g = nax::vmap<ex>([&](const auto& xe, const auto& ye) {
      auto ge = nax::grad(linear_loss)(params, xe, ye);
      return nax::tuple(std::get<0>(ge), std::get<1>(ge));
    })(x, y);
    nax::Array<T, ex, in, out> gw = std::get<0>(g);
    nax::Array<T, ex, out> gb = std::get<1>(g);
    return compare_all(c, 0, gw, gb);
  }
  if (c.op == "vmap_grad_logistic") {
    auto params = nax::tuple(conf::to_array<T, in>(in_[0]), conf::to_array<T>(in_[1]));
    auto x = conf::to_array<T, ex, in>(in_[2]);
    auto y = conf::to_array<T, ex>(in_[3]);
    auto g = nax::vmap<ex>([&](const auto& xe, const auto& ye) {
      auto ge = nax::grad(logistic_loss)(params, xe, ye);
      return nax::tuple(std::get<0>(ge), std::get<1>(ge));
    })(x, y);
    nax::Array<T, ex, in> gw = std::get<0>(g);
    nax::Array<T, ex> gb = std::get<1>(g);
    return compare_all(c, 0, gw, gb);
  }
  // pmean_grad: outputs 0-2 JAX's (shard_map) value and gradients, 3-4 the single-device
  // gradient of the mean loss over all the data. x (dev, ex, in).
  auto params = nax::tuple(conf::to_array<T, in, out>(in_[0]), conf::to_array<T, out>(in_[1]));
  auto x = conf::to_array<T, dev, ex, in>(in_[2]);
  auto y = conf::to_array<T, dev, ex, out>(in_[3]);
  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  auto [v, gw, gb] = nax::pmap<dev>([](const auto& p, const auto& xs, const auto& ys) {
    auto [l, g] = nax::value_and_grad([&](const auto& q) { return nax::pmean<dev>(linear_loss(q, xs, ys)); })(p);
    return nax::tuple(l, std::get<0>(g), std::get<1>(g));
  }, mesh)(params, x, y);
  static_assert(std::is_same_v<decltype(gw), nax::Array<T, in, out>>);  // replicated over the devices
  std::string e = compare_all(c, 0, v, gw, gb);
  return e.empty() ? compare_all(c, 3, gw, gb) : e;
}

}  // namespace

TEST_CASE("conformance grad: vmap(grad) and grad of pmean on 4 host devices (JAX issue 3970) against JAX") {
  const auto cases = conf::load_family("grad");
  const auto t = conf::run_family(cases, run, "grad/maps");
  CHECK(t.run == 6);
}
