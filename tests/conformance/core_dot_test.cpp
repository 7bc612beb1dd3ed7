// Conformance with JAX, family `core` (data/core/): contractions by name against
// jnp.einsum(precision=HIGHEST): matrix products, matrix-vector, inner and outer products,
// batch axes (also in permuted positions) and two contracted axes, float32, float64, int32.
#include "conformance.hpp"

namespace {

// The einsum letters of generate.py: i, j, k, l; bt is the batch axis (einsum's b).
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(l);
NAX_AXIS(bt);

using conf::Case;

template <class T>
std::string run_typed(const Case& c) {
  const std::string& op = c.op;
  const auto& A = c.in[0];
  const auto& B = c.in[1];
  // The result is assigned to an array with the einsum output's axis order (by name).
  if (op == "dot_matmul") {  // ik,kj->ij
    nax::Array<T, i, j> r = nax::dot<k>(conf::to_array<T, i, k>(A), conf::to_array<T, k, j>(B));
    return conf::compare(c.out[0], r);
  }
  if (op == "dot_matvec") {  // ik,k->i
    nax::Array<T, i> r = nax::dot<k>(conf::to_array<T, i, k>(A), conf::to_array<T, k>(B));
    return conf::compare(c.out[0], r);
  }
  if (op == "dot_inner") {  // k,k->
    nax::Array<T> r = nax::dot<k>(conf::to_array<T, k>(A), conf::to_array<T, k>(B));
    return conf::compare(c.out[0], r);
  }
  if (op == "dot_outer") {  // i,j->ij
    nax::Array<T, i, j> r = nax::dot<>(conf::to_array<T, i>(A), conf::to_array<T, j>(B));
    return conf::compare(c.out[0], r);
  }
  if (op == "dot_batch") {  // bik,bkj->bij
    nax::Array<T, bt, i, j> r = nax::dot<k>(conf::to_array<T, bt, i, k>(A), conf::to_array<T, bt, k, j>(B));
    return conf::compare(c.out[0], r);
  }
  if (op == "dot_batch_perm") {  // kbi,jkb->bij
    nax::Array<T, bt, i, j> r = nax::dot<k>(conf::to_array<T, k, bt, i>(A), conf::to_array<T, j, k, bt>(B));
    return conf::compare(c.out[0], r);
  }
  if (op == "dot_two") {  // ikl,klj->ij
    nax::Array<T, i, j> r = nax::dot<k, l>(conf::to_array<T, i, k, l>(A), conf::to_array<T, k, l, j>(B));
    return conf::compare(c.out[0], r);
  }
  return "unknown op " + op;
}

std::string run(const Case& c) {
  if (c.op.rfind("dot_", 0) != 0) return conf::skip();
  const std::string dt = c.dtype();
  if (dt == "float32") return run_typed<float>(c);
  if (dt == "float64") return run_typed<double>(c);
  if (dt == "int32") return run_typed<std::int32_t>(c);
  return "unknown dtype " + dt;
}

}  // namespace

TEST_CASE("conformance core: contractions against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, run, "core/contractions");
  CHECK(t.run == 21);
  // Every case of the family is run by one of the core files: 72 unary (core_unary_test.cpp),
  // 115 binary and others (core_elementwise_test.cpp), 140 reductions (core_reduce_test.cpp),
  // 21 here.
  CHECK(cases.size() == 72 + 115 + 140 + 21);
}
