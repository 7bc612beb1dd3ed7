// The JAX conformance suite on the CUDA backend (conformance_device.hpp): unary and binary elementwise ops, reductions and contractions.
#include "conformance_device.hpp"

#include "../conformance/core_dot.hpp"
#include "../conformance/core_elementwise.hpp"
#include "../conformance/core_reduce.hpp"
#include "../conformance/core_unary.hpp"

using namespace conf_cuda;

TEST_CASE("cuda conformance core: unary elementwise ops against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_unary::run<f32>, "core/unary elementwise", 32, 72);
}

TEST_CASE("cuda conformance core: elementwise ops against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_elementwise::run<f32_i32_bool>, "core/binary elementwise", 79, 115);
}

TEST_CASE("cuda conformance core: reductions against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_reduce::run<f32_i32_bool>, "core/reductions", 92, 140);
}

TEST_CASE("cuda conformance core: contractions against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_dot::run<f32_i32>, "core/contractions", 14, 21);
}
