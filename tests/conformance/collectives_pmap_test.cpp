// Conformance with JAX, family `collectives`, pmap (programs: collectives.hpp).
#include "collectives.hpp"

using conf::Case;

TEST_CASE("conformance collectives: under pmap on 4 host devices, against jax.pmap on 4 CPU devices") {
  const auto cases = conf::load_family("collectives");
  const auto t = conf::run_family(cases, conf_collectives::run<true>, "collectives/pmap",
                                  [](const Case& c) { return c.param("map") == "pmap"; });
  CHECK(t.run == 37);
}
