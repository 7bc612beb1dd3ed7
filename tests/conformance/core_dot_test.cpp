// Conformance with JAX, family `core` (data/core/): the contractions on the host (programs:
// core_dot.hpp).
#include "core_dot.hpp"

TEST_CASE("conformance core: contractions against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, conf_dot::run<conf::host_backend>, "core/contractions");
  CHECK(t.run == 21);
  // Every case of the family is run by one of the core files: 72 unary (core_unary_test.cpp),
  // 115 binary and others (core_elementwise_test.cpp), 140 reductions (core_reduce_test.cpp),
  // 21 here.
  CHECK(cases.size() == 72 + 115 + 140 + 21);
}
