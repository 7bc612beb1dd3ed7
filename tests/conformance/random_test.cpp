// Conformance with JAX, family `random` (data/random/): threefry keys and samplers on the host,
// bit for bit (programs: random.hpp).
#include "random.hpp"

TEST_CASE("conformance random: threefry keys and samplers against jax.random, bit for bit") {
  const auto cases = conf::load_family("random");
  const auto t = conf::run_family(cases, conf_random::run<conf::host_backend>, "random");
  CHECK(t.run == int(cases.size()));
}
