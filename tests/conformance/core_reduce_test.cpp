// Conformance with JAX, family `core` (data/core/): the reductions sum, prod, max, min, mean,
// logsumexp, argmax, argmin over axis a, axis b or both, of float32, float64, int32 and bool
// (sum) arrays, including ties and NaN (the mean of int32 is float32, as in JAX).
#include "conformance.hpp"

namespace {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;

template <class E>
std::string cmp(const Case& c, const E& e) {
  return conf::compare(c.out[0], nax::eval(e));
}

// op over the axes Rs... of x (none = all)
template <class... Rs, class X>
std::string reduce(const Case& c, const X& x) {
  using T = typename X::value_type;
  const std::string& op = c.op;
  if (op == "sum") return cmp(c, nax::sum<Rs...>(x));
  if constexpr (!std::is_same_v<T, bool>) {
    if (op == "prod") return cmp(c, nax::prod<Rs...>(x));
    if (op == "max") return cmp(c, nax::max<Rs...>(x));
    if (op == "min") return cmp(c, nax::min<Rs...>(x));
    if (op == "mean") return cmp(c, nax::mean<Rs...>(x));
    if constexpr (std::is_floating_point_v<T>)
      if (op == "logsumexp") return cmp(c, nax::logsumexp<Rs...>(x));
    if constexpr (sizeof...(Rs) == 1) {
      if (op == "argmax") return cmp(c, nax::argmax<Rs...>(x));
      if (op == "argmin") return cmp(c, nax::argmin<Rs...>(x));
    }
  }
  return "unknown op for " + c.dtype();
}

template <class T>
std::string run_typed(const Case& c) {
  const auto x = conf::to_array<T, a, b>(c.in[0]);
  const std::string& axis = c.param("axis");
  if (axis == "a") return reduce<a>(c, x);
  if (axis == "b") return reduce<b>(c, x);
  if (axis == "all") return reduce<>(c, x);
  return "unknown axis " + axis;
}

std::string run(const Case& c) {
  if (!c.has("axis")) return conf::skip();
  const std::string dt = c.dtype();
  if (dt == "float32") return run_typed<float>(c);
  if (dt == "float64") return run_typed<double>(c);
  if (dt == "int32") return run_typed<std::int32_t>(c);
  if (dt == "bool") return run_typed<bool>(c);
  return "unknown dtype " + dt;
}

}  // namespace

TEST_CASE("conformance core: reductions against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, run, "core/reductions");
  CHECK(t.run == 140);
}
