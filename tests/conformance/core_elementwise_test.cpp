// Conformance with JAX, family `core` (data/core/): the binary elementwise ops, where,
// broadcasting, mixed types and weak scalars on the host (programs: core_elementwise.hpp). The
// unary ops: core_unary_test.cpp; reductions and contractions: core_reduce_test.cpp,
// core_dot_test.cpp.
#include "core_elementwise.hpp"

TEST_CASE("conformance core: elementwise ops against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, conf_elementwise::run<conf::host_backend>, "core/binary elementwise");
  CHECK(t.run == 115);
}
