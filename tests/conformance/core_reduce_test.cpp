// Conformance with JAX, family `core` (data/core/): the reductions on the host (programs:
// core_reduce.hpp).
#include "core_reduce.hpp"

TEST_CASE("conformance core: reductions against JAX") {
  const auto cases = conf::load_family("core");
  const auto t = conf::run_family(cases, conf_reduce::run<conf::host_backend>, "core/reductions");
  CHECK(t.run == 140);
}
