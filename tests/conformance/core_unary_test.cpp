// Conformance with JAX, family `core` (data/core/): the unary elementwise ops on the host
// (programs: core_unary.hpp).
#include "core_unary.hpp"

TEST_CASE("conformance core: unary elementwise ops against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, conf_unary::run<conf::host_backend>, "core/unary elementwise");
  CHECK(t.run == 72);
}
