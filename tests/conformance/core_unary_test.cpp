// Conformance with JAX, family `core` (data/core/): every unary elementwise op of the core API
// (neg, abs, square, relu, exp, log, log1p, expm1, sqrt, rsqrt, sin, cos, tanh, erf, sigmoid,
// log_sigmoid) on 2-D arrays (axes a, b) of float32 and float64, and those meaningful for int32
// (a transcendental of int32 is float32, as in JAX).
#include "conformance.hpp"

#include <set>

namespace {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;

template <class R, class E>
std::string cmp(const Case& c, const E& e, double rtol = -1) {
  return conf::compare(c.out[0], nax::eval(e), rtol);
}

template <class T>
std::string unary(const Case& c) {
  const auto x = conf::to_array<T, a, b>(c.in[0]);
  const std::string& op = c.op;
  if (op == "neg") return cmp<T>(c, -x);
  if (op == "abs") return cmp<T>(c, nax::abs(x));
  if (op == "square") return cmp<T>(c, nax::square(x));
  if (op == "relu") return cmp<T>(c, nax::relu(x));
  if (op == "exp") return cmp<T>(c, nax::exp(x));
  if (op == "sqrt") return cmp<T>(c, nax::sqrt(x));
  if (op == "sin") return cmp<T>(c, nax::sin(x));
  if (op == "tanh") return cmp<T>(c, nax::tanh(x));
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "log") return cmp<T>(c, nax::log(x));
    if (op == "log1p") return cmp<T>(c, nax::log1p(x));
    if (op == "expm1") return cmp<T>(c, nax::expm1(x));
    if (op == "rsqrt") return cmp<T>(c, nax::rsqrt(x));
    if (op == "cos") return cmp<T>(c, nax::cos(x));
    if (op == "erf") return cmp<T>(c, nax::erf(x));
    if (op == "sigmoid") return cmp<T>(c, nax::sigmoid(x));
    if (op == "log_sigmoid") return cmp<T>(c, nax::log_sigmoid(x));
  }
  return "unknown op for " + c.dtype();
}

std::string run(const Case& c) {
  static const std::set<std::string> unary_ops = {"neg", "abs", "square", "relu", "exp", "log", "log1p", "expm1",
                                                  "sqrt", "rsqrt", "sin", "cos", "tanh", "erf", "sigmoid",
                                                  "log_sigmoid"};
  if (!unary_ops.count(c.op)) return conf::skip();
  const std::string dt = c.dtype();
  if (dt == "float32") return unary<float>(c);
  if (dt == "float64") return unary<double>(c);
  if (dt == "int32") return unary<std::int32_t>(c);
  return "unknown dtype " + dt;
}

}  // namespace

TEST_CASE("conformance core: unary elementwise ops against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, run, "core/unary elementwise");
  CHECK(t.run == 72);
}
