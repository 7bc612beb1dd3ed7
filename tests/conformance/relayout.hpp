// The programs of family `relayout`: transpose, slice with a step, concatenate (2 and 3
// operands), stack, reshape as split / merge, broadcast_to, and a fused program through a slice
// and reductions; float32 and int32. x is (a=3, b=8) in JAX's layout. Over a backend B
// (backend.hpp): relayout_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the
// CUDA backend.
#pragma once
#include "backend.hpp"

namespace conf_relayout {

NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(bo);
NAX_AXIS(bi);
NAX_AXIS(st);

using conf::Case;

template <class B, class T>
std::string run_typed(const Case& c) {
  const std::string& op = c.op;
  const auto& in = c.in;
  auto cmp = [&](const auto& e) { return conf::check<B>(c, e); };
  auto input = [&](std::size_t k) { return B::template input<T, a, b>(in[k]); };
  if (op == "merge") return cmp(nax::merge<bo, bi, b>(B::template input<T, a, bo, bi>(in[0])));  // (3, 2, 4) -> (3, 8)
  if (op == "concatenate_a") return cmp(nax::concatenate<a>(input(0), input(1)));
  if (op == "concatenate_b") return cmp(nax::concatenate<b>(input(0), input(1), input(2)));
  if (op == "stack") return cmp(nax::stack<st>(input(0), input(1)));
  if (op == "broadcast_to") return cmp(nax::broadcast_to<a, b>(B::template input<T, b>(in[0]), {3, 8}));
  const auto x = input(0);
  if (op == "transpose") return cmp(nax::transpose<b, a>(x));
  if (op == "slice_b") return cmp(nax::slice<b>(x, c.integer("begin"), c.integer("end"), c.integer("step")));
  if (op == "slice_a") return cmp(nax::slice<a>(x, c.integer("begin"), c.integer("end"), c.integer("step")));
  if (op == "split_b") return cmp(nax::split<b, bo, bi>(x, c.integer("inner")));
  if (op == "fused") {  // sum(x[:, ::2] * v[::2], axis=1) + max(x, axis=1)
    const auto v = B::template input<T, b>(in[1]);
    return cmp(nax::sum<b>(nax::slice<b>(x, 0, 8, 2) * nax::slice<b>(v, 0, 8, 2)) + nax::max<b>(x));
  }
  return "unknown op " + op;
}

template <class B>
std::string run(const Case& c) {
  return conf::by_dtype<B, float, std::int32_t>(c.dtype(), [&](auto t) { return run_typed<B, decltype(t)>(c); });
}

}  // namespace conf_relayout
