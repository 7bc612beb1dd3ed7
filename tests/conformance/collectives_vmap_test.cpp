// Conformance with JAX, family `collectives`, vmap (programs: collectives.hpp).
#include "collectives.hpp"

using conf::Case;

TEST_CASE("conformance collectives: under vmap, against jax.vmap with axis_name") {
  const auto cases = conf::load_family("collectives");
  const auto t = conf::run_family(cases, conf_collectives::run<false>, "collectives/vmap",
                                  [](const Case& c) { return c.param("map") == "vmap"; });
  CHECK(t.run == 35);
}
