// Conformance with JAX, family `nn` (data/nn/): the added elementwise ops and the jax.nn /
// optax functions over an axis, values and gradients, on the host (programs: nn.hpp).
#include "nn.hpp"

TEST_CASE("conformance nn: activations, rounding, softmax, norms and cross-entropies against JAX") {
  const auto cases = conf::load_family("nn");
  const auto t = conf::run_family(cases, conf_nn::run<conf::host_backend>, "nn");
  CHECK(t.run == 78);
}
