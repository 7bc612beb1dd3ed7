// Conformance with JAX, family `relayout` (data/relayout/): transpose, slice, concatenate,
// stack, reshape, broadcast_to and a fused program on the host (programs: relayout.hpp).
#include "relayout.hpp"

TEST_CASE("conformance relayout: transpose, slice, concatenate, stack, reshape, broadcast_to against JAX") {
  const auto cases = conf::load_family("relayout");
  const auto t = conf::run_family(cases, conf_relayout::run<conf::host_backend>, "relayout");
  CHECK(t.run == int(cases.size()));
}
