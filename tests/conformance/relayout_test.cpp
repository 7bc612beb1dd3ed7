// Conformance with JAX, family `relayout` (data/relayout/): transpose, slice with a step,
// concatenate (2 and 3 operands), stack, reshape as split / merge, broadcast_to, and a fused
// program through a slice and reductions; float32 and int32. x is (a=3, b=8) in JAX's layout.
#include "conformance.hpp"

namespace {

NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(bo);
NAX_AXIS(bi);
NAX_AXIS(st);

using conf::Case;

template <class T>
std::string run_typed(const Case& c) {
  const std::string& op = c.op;
  const auto& in = c.in;
  auto cmp = [&](const auto& e) { return conf::compare(c.out[0], nax::eval(e)); };
  if (op == "merge") return cmp(nax::merge<bo, bi, b>(conf::to_array<T, a, bo, bi>(in[0])));  // (3, 2, 4) -> (3, 8)
  if (op == "broadcast_to") return cmp(nax::broadcast_to<a, b>(conf::to_array<T, b>(in[0]), {3, 8}));
  const auto x = conf::to_array<T, a, b>(in[0]);
  if (op == "transpose") return cmp(nax::transpose<b, a>(x));
  if (op == "slice_b") return cmp(nax::slice<b>(x, c.integer("begin"), c.integer("end"), c.integer("step")));
  if (op == "slice_a") return cmp(nax::slice<a>(x, c.integer("begin"), c.integer("end"), c.integer("step")));
  if (op == "concatenate_a") return cmp(nax::concatenate<a>(x, conf::to_array<T, a, b>(in[1])));
  if (op == "concatenate_b") return cmp(nax::concatenate<b>(x, conf::to_array<T, a, b>(in[1]), conf::to_array<T, a, b>(in[2])));
  if (op == "stack") return cmp(nax::stack<st>(x, conf::to_array<T, a, b>(in[1])));
  if (op == "split_b") return cmp(nax::split<b, bo, bi>(x, c.integer("inner")));
  if (op == "fused") {  // sum(x[:, ::2] * v[::2], axis=1) + max(x, axis=1)
    const auto v = conf::to_array<T, b>(in[1]);
    return cmp(nax::sum<b>(nax::slice<b>(x, 0, 8, 2) * nax::slice<b>(v, 0, 8, 2)) + nax::max<b>(x));
  }
  return "unknown op " + op;
}

std::string run(const Case& c) {
  const std::string dt = c.dtype();
  if (dt == "float32") return run_typed<float>(c);
  if (dt == "int32") return run_typed<std::int32_t>(c);
  return "unknown dtype " + dt;
}

}  // namespace

TEST_CASE("conformance relayout: transpose, slice, concatenate, stack, reshape, broadcast_to against JAX") {
  const auto cases = conf::load_family("relayout");
  const auto t = conf::run_family(cases, run, "relayout");
  CHECK(t.run == int(cases.size()));
}
