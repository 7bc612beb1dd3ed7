// Conformance with JAX, family `grad` (data/grad/), the two-layer MLP of examples/mlp_2d_mesh.cpp
// on one device (tanh, and relu): value_and_grad w.r.t. the params tuple (w1, b1, w2, b2), and
// grad w.r.t. a Hana struct of them (JAX: a dict), float32 and float64. Models: grad.hpp; the
// tuple cases' program: grad_losses.hpp (the CUDA backend runs it too).
#include "grad_losses.hpp"

namespace {

using namespace conf_grad;

// The Hana-struct case (host only: the struct holds nax::Arrays); the tuple cases are
// grad_losses.hpp's run_mlp.
template <class T>
std::string run_typed(const Case& c) {
  const auto& in_ = c.in;
  auto x = conf::to_array<T, ex, in>(in_.at(4));
  auto y = conf::to_array<T, ex, out>(in_.at(5));
  if (c.op == "pytree_mlp") {  // grad w.r.t. a Hana struct; the gradient is the same struct
    MlpParams<T> p;
    p.w1 = conf::to_array<T, hidden, in>(in_[0]);
    p.b1 = conf::to_array<T, hidden>(in_[1]);
    p.w2 = conf::to_array<T, hidden, out>(in_[2]);
    p.b2 = conf::to_array<T, out>(in_[3]);
    auto loss = [](const auto& q, const auto& xs, const auto& ys) { return mlp<Tanh>(q.w1, q.b1, q.w2, q.b2, xs, ys); };
    MlpParams<T> g = nax::grad(loss)(p, x, y);
    return compare_all(c, 0, g.w1, g.b1, g.w2, g.b2);
  }
  return "unknown op " + c.op;
}

std::string run(const Case& c) {
  if (c.op == "mlp") return run_mlp_for<conf::host_backend>(c);
  if (c.op != "pytree_mlp") return conf::skip();
  if (c.dtype() == "float32") return run_typed<float>(c);
  if (c.dtype() == "float64") return run_typed<double>(c);
  return "unknown dtype " + c.dtype();
}

}  // namespace

TEST_CASE("conformance grad: a two-layer MLP (tanh, relu; params a tuple or a Hana struct) against jax.grad") {
  const auto cases = conf::load_family("grad");
  const auto t = conf::run_family(cases, run, "grad/mlp");
  CHECK(t.run == 12);
}
