// The JAX conformance suite on the CUDA backend (conformance_device.hpp): random, grad, relayout and nn.
#include "conformance_device.hpp"

#include "../conformance/grad_losses.hpp"
#include "../conformance/nn.hpp"
#include "../conformance/random.hpp"
#include "../conformance/relayout.hpp"

using namespace conf_cuda;

TEST_CASE("cuda conformance random: threefry keys and samplers on the device against jax.random, bit for bit") {
  if (nax_cuda_test::no_device()) return;
  on_device("random", conf_random::run<every_type>, "random", 176, 187);
}

TEST_CASE("cuda conformance grad: the JAX programs' losses and the MLP (params tuples) against jax.grad") {
  if (nax_cuda_test::no_device()) return;
  on_device("grad", conf_grad::run_losses_for<f32>, "grad/losses", 6, 12);
  on_device("grad", conf_grad::run_mlp_for<f32>, "grad/mlp", 4, 8);
}

TEST_CASE("cuda conformance relayout: transpose, slice, split, broadcast_to, a fused program against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("relayout", conf_relayout::run<f32>, "relayout", 11, 22);
}

TEST_CASE("cuda conformance nn: the added elementwise ops, softmax, norms and cross-entropies against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("nn", conf_nn::run<f32>, "nn", 37, 78);  // float32 values and gradients
}
