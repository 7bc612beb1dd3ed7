// Device storage: a typed, stream-ordered allocation (cudaMallocAsync / cudaFreeAsync on the
// device's nax stream). The one interface every device array stores its elements through.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <limits>
#include <string>
#include <utility>

#include "device.hpp"

namespace nax::cuda::detail {

// A failed allocation names the device, the bytes asked for and CUDA's reason, whatever the
// code: out of memory, or a size the allocator rejects outright (cudaErrorInvalidValue, ...).
inline std::string allocation_error_text(cudaError_t status, std::size_t bytes, int device) {
  const char* what = status == cudaErrorMemoryAllocation ? "nax: out of device memory" : "nax: device allocation failed";
  return std::string(what) + " on CUDA device " + std::to_string(device) + ": cudaMallocAsync of " + byte_count_text(bytes) +
         " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
}

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(std::size_t count, int device) : count_(count), device_(device) {
    if (count == 0) return;
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
      throw device_error("nax: device allocation of " + std::to_string(count) + " elements of " +
                         std::to_string(sizeof(T)) + " bytes overflows");
    const std::size_t bytes = count * sizeof(T);
    device_guard guard(device);
    void* p = nullptr;
    const cudaError_t status = cudaMallocAsync(&p, bytes, nax::cuda::stream(device));
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw device_error(allocation_error_text(status, bytes, device));
    }
    data_ = static_cast<T*>(p);
  }
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)), device_(other.device_) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
      device_ = other.device_;
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { release(); }

  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  int device() const { return device_; }

 private:
  // Stream-ordered: work already queued on the stream that reads the buffer completes first.
  void release() noexcept {
    if (!data_) return;
    int previous = 0;
    (void)cudaGetDevice(&previous);
    if (previous != device_) (void)cudaSetDevice(device_);
    (void)cudaFreeAsync(data_, nax::cuda::stream(device_));
    if (previous != device_) (void)cudaSetDevice(previous);
    data_ = nullptr;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
  int device_ = 0;
};

}  // namespace nax::cuda::detail
