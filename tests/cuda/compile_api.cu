// The CUDA test executable's first case: the umbrella header compiles under nvcc, and the
// tests find out whether there is a device. Without one they print a skip message and pass.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cuda_runtime.h>

namespace {
__global__ void fill_index(nax::index_t* out, nax::index_t n) {
  nax::index_t const i = blockIdx.x * nax::index_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = i;
}
}  // namespace

TEST_CASE("a kernel using nax types runs on the device, when there is one") {
  int devices = 0;
  cudaError_t const status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    MESSAGE("no CUDA device found: CUDA tests skipped");
    return;
  }
  constexpr nax::index_t n = 1000;
  nax::index_t* data = nullptr;
  REQUIRE(cudaMalloc(&data, n * sizeof(nax::index_t)) == cudaSuccess);
  fill_index<<<(n + 255) / 256, 256>>>(data, n);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  nax::index_t host[n];
  REQUIRE(cudaMemcpy(host, data, sizeof(host), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(data);
  CHECK(host[0] == 0);
  CHECK(host[n - 1] == n - 1);
}
