// Conformance with JAX, family `index` (data/index/): take, take_along, one_hot, the
// cross-entropy with integer labels and the scatters, values and gradients, on the host
// (programs: index.hpp).
#include "index.hpp"

TEST_CASE("conformance index: take, take_along, one_hot, integer-label cross-entropy and scatters against JAX") {
  const auto cases = conf::load_family("index");
  const auto t = conf::run_family(cases, conf_index::run<conf::host_backend>, "index");
  CHECK(t.run == 24);
}
