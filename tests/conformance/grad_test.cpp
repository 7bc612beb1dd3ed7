// Conformance with JAX, family `grad` (data/grad/), the JAX programs' losses: jax.grad and
// jax.value_and_grad of examples/train_pmap.cpp's linear model (params tuple (w, b); and
// loss(w, b, x, y) with argnums (0, 1)) and of train_logistic.cpp's logistic loss, float32 and
// float64. The programs are in grad_losses.hpp (the CUDA backend runs them too), the models in
// grad.hpp; the MLP and pytree cases: grad_mlp_test.cpp; vmap(grad) and the pmap case of JAX
// issue 3970: grad_maps_test.cpp.
#include "grad_losses.hpp"

TEST_CASE("conformance grad: grad, value_and_grad and argnums of the JAX programs' losses against jax.grad") {
  const auto cases = conf::load_family("grad");
  const auto t = conf::run_family(cases, conf_grad::run_losses_for<conf::host_backend>, "grad/losses");
  CHECK(t.run == 12);
}
