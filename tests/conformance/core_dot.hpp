// The programs of family `core`'s contractions by name, against jnp.einsum(precision=HIGHEST):
// matrix products, matrix-vector, inner and outer products, batch axes (also in permuted
// positions) and two contracted axes, float32, float64, int32. Over a backend B (backend.hpp):
// core_dot_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the CUDA backend.
#pragma once
#include "backend.hpp"

namespace conf_dot {

// The einsum letters of generate.py: i, j, k, l; bt is the batch axis (einsum's b).
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(l);
NAX_AXIS(bt);

using conf::Case;

template <class B, class T>
std::string run_typed(const Case& c) {
  const std::string& op = c.op;
  const auto& A = c.in[0];
  const auto& Bn = c.in[1];
  // The result is assigned to an array with the einsum output's axis order (by name).
  if (op == "dot_matmul")  // ik,kj->ij
    return conf::check_as<B, T, i, j>(c, nax::dot<k>(B::template input<T, i, k>(A), B::template input<T, k, j>(Bn)));
  if (op == "dot_matvec")  // ik,k->i
    return conf::check_as<B, T, i>(c, nax::dot<k>(B::template input<T, i, k>(A), B::template input<T, k>(Bn)));
  if (op == "dot_inner")  // k,k->
    return conf::check_as<B, T>(c, nax::dot<k>(B::template input<T, k>(A), B::template input<T, k>(Bn)));
  if (op == "dot_outer")  // i,j->ij
    return conf::check_as<B, T, i, j>(c, nax::dot<>(B::template input<T, i>(A), B::template input<T, j>(Bn)));
  if (op == "dot_batch")  // bik,bkj->bij
    return conf::check_as<B, T, bt, i, j>(
        c, nax::dot<k>(B::template input<T, bt, i, k>(A), B::template input<T, bt, k, j>(Bn)));
  if (op == "dot_batch_perm")  // kbi,jkb->bij
    return conf::check_as<B, T, bt, i, j>(
        c, nax::dot<k>(B::template input<T, k, bt, i>(A), B::template input<T, j, k, bt>(Bn)));
  if (op == "dot_two")  // ikl,klj->ij
    return conf::check_as<B, T, i, j>(
        c, nax::dot<k, l>(B::template input<T, i, k, l>(A), B::template input<T, k, l, j>(Bn)));
  return "unknown op " + op;
}

template <class B>
std::string run(const Case& c) {
  if (c.op.rfind("dot_", 0) != 0) return conf::skip();
  return conf::by_dtype<B, float, double, std::int32_t>(c.dtype(), [&](auto t) { return run_typed<B, decltype(t)>(c); });
}

}  // namespace conf_dot
