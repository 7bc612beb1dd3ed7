// Conformance with JAX, family `core` (data/core/): the binary elementwise ops of the core API
// (arithmetic, maximum / minimum, pow, comparisons, logical ops, where) on 2-D arrays (axes a,
// b) of float32, float64, int32 and bool, with NaN and infinities and XLA's integer division
// corners; broadcasting by name, mixed element types and weak scalars. The unary ops:
// core_unary_test.cpp; reductions and contractions: core_reduce_test.cpp, core_dot_test.cpp.
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
std::string binary(const Case& c) {
  const auto x = conf::to_array<T, a, b>(c.in[0]);
  const auto y = conf::to_array<T, a, b>(c.in[1]);
  const std::string& op = c.op;
  if (op == "eq") return cmp<T>(c, x == y);
  if (op == "ne") return cmp<T>(c, x != y);
  if constexpr (std::is_same_v<T, bool>) {
    if (op == "and") return cmp<T>(c, x && y);
    if (op == "or") return cmp<T>(c, x || y);
  } else {
    if (op == "add") return cmp<T>(c, x + y);
    if (op == "sub") return cmp<T>(c, x - y);
    if (op == "mul") return cmp<T>(c, x * y);
    if (op == "div") return cmp<T>(c, x / y);
    if (op == "maximum") return cmp<T>(c, nax::maximum(x, y));
    if (op == "minimum") return cmp<T>(c, nax::minimum(x, y));
    if (op == "pow") return cmp<T>(c, nax::pow(x, y));
    if (op == "lt") return cmp<T>(c, x < y);
    if (op == "le") return cmp<T>(c, x <= y);
    if (op == "gt") return cmp<T>(c, x > y);
    if (op == "ge") return cmp<T>(c, x >= y);
  }
  return "unknown op for " + c.dtype();
}

template <class T>
std::string other(const Case& c) {
  const std::string& op = c.op;
  if (op == "where") {
    const auto p = conf::to_array<bool, a, b>(c.in[0]);
    return cmp<T>(c, nax::where(p, conf::to_array<T, a, b>(c.in[1]), conf::to_array<T, a, b>(c.in[2])));
  }
  if constexpr (!std::is_same_v<T, bool>) {
    const auto x = conf::to_array<T, a, b>(c.in[0]);
    if (op == "add_bcast_b") return cmp<T>(c, x + conf::to_array<T, b>(c.in[1]));
    if (op == "mul_bcast_a") {
      nax::Array<T, a, b> r = x * conf::to_array<T, a>(c.in[1]);  // result axes (a, b) by name
      return conf::compare(c.out[0], r);
    }
    if (op == "scale") return cmp<T>(c, x * 2.5);  // weak scalar: float stays float, int -> double
  }
  return "unknown op for " + c.dtype();
}

std::string run(const Case& c) {
  static const std::set<std::string> binary_ops = {"add", "sub", "mul", "div", "maximum", "minimum", "pow", "lt",
                                                   "le", "gt", "ge", "eq", "ne", "and", "or"};
  static const std::set<std::string> other_ops = {"where", "add_bcast_b", "mul_bcast_a", "scale"};
  const std::string dt = c.dtype();
  if (c.op == "not") return cmp<bool>(c, !conf::to_array<bool, a, b>(c.in[0]));
  if (c.op == "add_mixed")  // int32 + float32 -> float32
    return cmp<float>(c, conf::to_array<std::int32_t, a, b>(c.in[0]) + conf::to_array<float, a, b>(c.in[1]));
  if (c.op == "mul_mixed")  // float32 * float64 -> float64
    return cmp<double>(c, conf::to_array<float, a, b>(c.in[0]) * conf::to_array<double, a, b>(c.in[1]));
  auto dispatch = [&](auto fn) -> std::string {
    if (dt == "float32") return fn(float{});
    if (dt == "float64") return fn(double{});
    if (dt == "int32") return fn(std::int32_t{});
    if (dt == "bool") return fn(bool{});
    return "unknown dtype " + dt;
  };
  if (binary_ops.count(c.op)) return dispatch([&](auto t) { return binary<decltype(t)>(c); });
  if (other_ops.count(c.op)) return dispatch([&](auto t) { return other<decltype(t)>(c); });
  return conf::skip();
}

}  // namespace

TEST_CASE("conformance core: elementwise ops against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, run, "core/binary elementwise");
  CHECK(t.run == 115);
}
