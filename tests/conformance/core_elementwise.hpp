// The programs of family `core`'s binary elementwise ops (arithmetic, maximum / minimum, pow,
// comparisons, logical ops, where) on 2-D arrays (axes a, b) of float32, float64, int32 and
// bool, with NaN and infinities and XLA's integer division corners; broadcasting by name,
// mixed element types and weak scalars. Over a backend B (backend.hpp):
// core_elementwise_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the CUDA
// backend.
#pragma once
#include "backend.hpp"

#include <set>

namespace conf_elementwise {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;

template <class B, class T>
std::string binary(const Case& c) {
  const auto x = B::template input<T, a, b>(c.in[0]);
  const auto y = B::template input<T, a, b>(c.in[1]);
  auto cmp = [&](const auto& e) { return conf::check<B>(c, e); };
  const std::string& op = c.op;
  if (op == "eq") return cmp(x == y);
  if (op == "ne") return cmp(x != y);
  if constexpr (std::is_same_v<T, bool>) {
    if (op == "and") return cmp(x && y);
    if (op == "or") return cmp(x || y);
  } else {
    if (op == "add") return cmp(x + y);
    if (op == "sub") return cmp(x - y);
    if (op == "mul") return cmp(x * y);
    if (op == "div") return cmp(x / y);
    if (op == "maximum") return cmp(nax::maximum(x, y));
    if (op == "minimum") return cmp(nax::minimum(x, y));
    if (op == "pow") return cmp(nax::pow(x, y));
    if (op == "lt") return cmp(x < y);
    if (op == "le") return cmp(x <= y);
    if (op == "gt") return cmp(x > y);
    if (op == "ge") return cmp(x >= y);
  }
  return "unknown op for " + c.dtype();
}

template <class B, class T>
std::string other(const Case& c) {
  auto cmp = [&](const auto& e) { return conf::check<B>(c, e); };
  const std::string& op = c.op;
  if (op == "where") {
    const auto p = B::template input<bool, a, b>(c.in[0]);
    return cmp(nax::where(p, B::template input<T, a, b>(c.in[1]), B::template input<T, a, b>(c.in[2])));
  }
  if constexpr (!std::is_same_v<T, bool>) {
    const auto x = B::template input<T, a, b>(c.in[0]);
    if (op == "add_bcast_b") return cmp(x + B::template input<T, b>(c.in[1]));
    if (op == "mul_bcast_a")  // result axes (a, b) by name
      return conf::check_as<B, T, a, b>(c, x * B::template input<T, a>(c.in[1]));
    if (op == "scale") return cmp(x * 2.5);  // weak scalar: float stays float, int -> double
  }
  return "unknown op for " + c.dtype();
}

template <class B>
std::string run(const Case& c) {
  static const std::set<std::string> binary_ops = {"add", "sub", "mul", "div", "maximum", "minimum", "pow", "lt",
                                                   "le", "gt", "ge", "eq", "ne", "and", "or"};
  static const std::set<std::string> other_ops = {"where", "add_bcast_b", "mul_bcast_a", "scale"};
  const std::string dt = c.dtype();
  if (c.op == "not") return conf::check<B>(c, !B::template input<bool, a, b>(c.in[0]));
  if (c.op == "add_mixed")  // int32 + float32 -> float32
    return conf::check<B>(c, B::template input<std::int32_t, a, b>(c.in[0]) + B::template input<float, a, b>(c.in[1]));
  if (c.op == "mul_mixed")  // float32 * float64 -> float64
    return conf::check<B>(c, B::template input<float, a, b>(c.in[0]) * B::template input<double, a, b>(c.in[1]));
  auto dispatch = [&](auto fn) { return conf::by_dtype<B, float, double, std::int32_t, bool>(dt, fn); };
  if (binary_ops.count(c.op)) return dispatch([&](auto t) { return binary<B, decltype(t)>(c); });
  if (other_ops.count(c.op)) return dispatch([&](auto t) { return other<B, decltype(t)>(c); });
  return conf::skip();
}

}  // namespace conf_elementwise
