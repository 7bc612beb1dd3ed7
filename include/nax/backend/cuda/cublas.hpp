// cuBLAS: status checks (nax::device_error naming the call and cuBLAS's reason) and one
// handle per device, bound to the device's nax stream, created on first use.
#pragma once
#include <cublas_v2.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device.hpp"

namespace nax::cuda::detail {

inline void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw device_error(std::string("nax: cuBLAS call ") + call + " failed: " + cublasGetStatusName(status) + " (" +
                       cublasGetStatusString(status) + ")");
}

// The cuBLAS handle of `device` (never destroyed: lives until the process ends).
inline cublasHandle_t cublas_handle(int device) {
  static std::mutex mutex;
  static std::vector<cublasHandle_t> handles;
  std::lock_guard lock(mutex);
  if (handles.empty()) handles.assign(static_cast<std::size_t>(device_count()), nullptr);
  if (device < 0 || device >= static_cast<int>(handles.size()))
    throw device_error("nax: CUDA device " + std::to_string(device) + " does not exist");
  auto& handle = handles[static_cast<std::size_t>(device)];
  if (!handle) {
    device_guard guard(device);
    check_cublas(cublasCreate(&handle), "cublasCreate");
    check_cublas(cublasSetStream(handle, nax::cuda::stream(device)), "cublasSetStream");
  }
  return handle;
}

}  // namespace nax::cuda::detail

#define NAX_CUBLAS_CHECK(...) ::nax::cuda::detail::check_cublas((__VA_ARGS__), #__VA_ARGS__)
