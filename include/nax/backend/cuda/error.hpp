// Status checks for the CUDA runtime: every call's status becomes a nax::device_error that
// names the call and the runtime's reason. cuBLAS and NCCL have their own checks (cublas.hpp,
// mesh/nccl_communicator.hpp) that raise the same exception.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "../../core/errors.hpp"

namespace nax::cuda::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call) {
  throw device_error(std::string("nax: CUDA call ") + call + " failed: " + cudaGetErrorName(status) + " (" +
                     cudaGetErrorString(status) + ")");
}

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so that later calls do not report it again
    throw_cuda_error(status, call);
  }
}

// After a kernel launch: a bad configuration shows here, not at the launch.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

inline std::string byte_count_text(std::size_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes >= (std::size_t{1} << 20))
    text += " (" + std::to_string(bytes >> 20) + " MiB)";
  return text;
}

}  // namespace nax::cuda::detail

// NAX_CUDA_CHECK(cudaMemcpy(...)): runs the call and raises nax::device_error naming it.
#define NAX_CUDA_CHECK(...) ::nax::cuda::detail::check((__VA_ARGS__), #__VA_ARGS__)
