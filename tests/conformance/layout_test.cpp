// Conformance with JAX, family `layout` (data/layout/): the gather layouts, the scans, tril/triu, the
// creation ops and the composed reductions, values and gradients, on the host (programs:
// layout.hpp).
#include "layout.hpp"

TEST_CASE("conformance layout: flip, roll, pad, tile, repeat, dynamic slices, scans, triangles, linspace and norms against JAX") {
  const auto cases = conf::load_family("layout");
  const auto t = conf::run_family(cases, conf_layout::run<conf::host_backend>, "layout");
  CHECK(t.run == 85);
}
