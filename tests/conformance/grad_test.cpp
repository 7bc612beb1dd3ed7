// Conformance with JAX, family `grad` (data/grad/), the seeds' losses: jax.grad and
// jax.value_and_grad of examples/train_pmap.cpp's linear model (params tuple (w, b); and
// loss(w, b, x, y) with argnums (0, 1)) and of train_logistic.cpp's logistic loss, float32 and
// float64. Models: grad.hpp; the MLP and pytree cases: grad_mlp_test.cpp; vmap(grad) and the
// pmap case of JAX issue 3970: grad_maps_test.cpp. Inputs and outputs in generate.py's order.
#include "grad.hpp"

namespace {

using namespace conf_grad;

template <class T>
std::string run_typed(const Case& c) {
  const auto& in_ = c.in;
  if (c.op == "linear") {  // value_and_grad (outputs 0-2) and grad (3-4) w.r.t. params (w, b)
    auto params = nax::tuple(conf::to_array<T, in, out>(in_[0]), conf::to_array<T, out>(in_[1]));
    auto x = conf::to_array<T, ex, in>(in_[2]);
    auto y = conf::to_array<T, ex, out>(in_[3]);
    auto [v, g] = nax::value_and_grad(linear_loss)(params, x, y);
    auto g2 = nax::grad(linear_loss)(params, x, y);
    return compare_all(c, 0, v, std::get<0>(g), std::get<1>(g), std::get<0>(g2), std::get<1>(g2));
  }
  if (c.op == "argnums") {  // loss(w, b, x, y): grad<0, 1> (outputs 0-1), value_and_grad<0, 1> (2-4)
    auto w = conf::to_array<T, in, out>(in_[0]);
    auto b = conf::to_array<T, out>(in_[1]);
    auto x = conf::to_array<T, ex, in>(in_[2]);
    auto y = conf::to_array<T, ex, out>(in_[3]);
    auto f = [](const auto& w_, const auto& b_, const auto& x_, const auto& y_) {
      return linear_loss(std::tie(w_, b_), x_, y_);
    };
    auto [gw, gb] = nax::grad<0, 1>(f)(w, b, x, y);
    auto [v, g] = nax::value_and_grad<0, 1>(f)(w, b, x, y);
    return compare_all(c, 0, gw, gb, v, std::get<0>(g), std::get<1>(g));
  }
  if (c.op == "logistic") {  // value_and_grad (0-2) and grad (3-4) w.r.t. params (w, b scalar)
    auto params = nax::tuple(conf::to_array<T, in>(in_[0]), conf::to_array<T>(in_[1]));
    auto x = conf::to_array<T, ex, in>(in_[2]);
    auto y = conf::to_array<T, ex>(in_[3]);
    auto [v, g] = nax::value_and_grad(logistic_loss)(params, x, y);
    auto g2 = nax::grad(logistic_loss)(params, x, y);
    return compare_all(c, 0, v, std::get<0>(g), std::get<1>(g), std::get<0>(g2), std::get<1>(g2));
  }
  return conf::skip();
}

std::string run(const Case& c) {
  if (c.dtype() == "float32") return run_typed<float>(c);
  if (c.dtype() == "float64") return run_typed<double>(c);
  return "unknown dtype " + c.dtype();
}

}  // namespace

TEST_CASE("conformance grad: grad, value_and_grad and argnums of the seeds' losses against jax.grad") {
  const auto cases = conf::load_family("grad");
  const auto t = conf::run_family(cases, run, "grad/losses");
  CHECK(t.run == 12);
}
