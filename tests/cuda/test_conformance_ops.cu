// The JAX conformance suite on the CUDA backend (conformance_device.hpp): index, layout, bitwise and sort.
#include "conformance_device.hpp"

#include "../conformance/bitwise.hpp"
#include "../conformance/index.hpp"
#include "../conformance/layout.hpp"
#include "../conformance/sort.hpp"

using namespace conf_cuda;

TEST_CASE("cuda conformance index: take, take_along, one_hot, integer-label cross-entropy and scatters against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("index", conf_index::run<f32>, "index", 13, 24);  // float32 values and gradients
}

TEST_CASE("cuda conformance layout: gather layouts, triangles, linspace and composed reductions against JAX") {
  if (nax_cuda_test::no_device()) return;
  // float32 values and gradients, int32 linspace, any/all/count_nonzero (bool, int64 results),
  // cumsum of bools
  on_device("layout", conf_layout::run<f32_i32_bool_i64>, "layout", 45, 85);
}

TEST_CASE("cuda conformance bitwise: and, or, xor, not, invert and the shifts on integers and bools against JAX") {
  if (nax_cuda_test::no_device()) return;
  // every type of the host file: int8, uint8, int32, uint32, int64, bool (mixed types, C++ numbers)
  using integers = cuda_backend<std::int8_t, std::uint8_t, std::int32_t, std::uint32_t, std::int64_t, bool>;
  on_device("bitwise", conf_bitwise::run<integers>, "bitwise", 65, 65);
}

TEST_CASE("cuda conformance sort: sort, argsort, top_k, searchsorted, quantile and median against JAX") {
  if (nax_cuda_test::no_device()) return;
  // float32 values and gradients, int32 sorts (int64 positions); float64 is not compiled for the device
  on_device("sort", conf_sort::run<cuda_backend<float, std::int32_t, std::int64_t>>, "sort", 22, 40);
}
