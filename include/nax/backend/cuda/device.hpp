// Devices and streams: nax::cuda::device_count(), has_device(), one stream per device
// (created on first use, lives as long as the program), synchronize(), and the release
// threshold of each device's memory pool (set_pool_release_threshold).
// All nax work for a device (allocations, copies, kernels, cuBLAS) is ordered on its stream.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../../core/errors.hpp"
#include "error.hpp"

namespace nax::cuda {

// Number of visible CUDA devices; 0 when there is no device or no driver (never throws).
inline int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

inline bool has_device() { return device_count() > 0; }

inline int current_device() {
  int device = 0;
  NAX_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

namespace detail {

// Makes `device` current for the lifetime of the guard, then restores the previous one.
class device_guard {
 public:
  explicit device_guard(int device) {
    NAX_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device != previous_) NAX_CUDA_CHECK(cudaSetDevice(device));
  }
  ~device_guard() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = 0;
};

struct device_state {
  cudaStream_t stream = nullptr;
  int multiprocessors = 0;
  cudaMemPool_t pool = nullptr;  // the pool cudaMallocAsync draws from; null without pool support
};

// What nax sets as the release threshold of a device's memory pool when it first uses the
// device: keep all freed memory (below).
inline constexpr std::uint64_t default_pool_release_threshold = std::numeric_limits<std::uint64_t>::max();

struct device_states {
  std::mutex mutex;
  std::vector<std::unique_ptr<device_state>> states;
};
inline device_states& all_states() {
  static device_states everything;
  return everything;
}

// The per-device state, created on first use (thread-safe). Streams are never destroyed:
// they live until the process ends, when the driver reclaims them.
inline const device_state& state(int device) {
  auto& [mutex, states] = all_states();
  std::lock_guard lock(mutex);
  if (states.empty()) {
    int n = device_count();
    if (n == 0) throw device_error("nax: no CUDA device is available (cudaGetDeviceCount found none)");
    states.resize(static_cast<std::size_t>(n));
  }
  if (device < 0 || device >= static_cast<int>(states.size()))
    throw device_error("nax: CUDA device " + std::to_string(device) + " does not exist (" +
                       std::to_string(states.size()) + " devices)");
  auto& slot = states[static_cast<std::size_t>(device)];
  if (!slot) {
    auto made = std::make_unique<device_state>();
    device_guard guard(device);
    NAX_CUDA_CHECK(cudaStreamCreateWithFlags(&made->stream, cudaStreamNonBlocking));
    NAX_CUDA_CHECK(cudaDeviceGetAttribute(&made->multiprocessors, cudaDevAttrMultiProcessorCount, device));
    int pools = 0;
    NAX_CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
    if (pools) {
      NAX_CUDA_CHECK(cudaDeviceGetMemPool(&made->pool, device));
      std::uint64_t keep = default_pool_release_threshold;
      NAX_CUDA_CHECK(cudaMemPoolSetAttribute(made->pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    slot = std::move(made);
  }
  return *slot;
}

}  // namespace detail

// The stream nax uses on `device` (default: the current device).
inline cudaStream_t stream(int device) { return detail::state(device).stream; }
inline cudaStream_t stream() { return stream(current_device()); }

// Waits until all nax work queued on `device` (default: the current one) has finished;
// raises an asynchronous kernel failure as nax::device_error.
inline void synchronize(int device) {
  detail::device_guard guard(device);
  NAX_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
}
inline void synchronize() { synchronize(current_device()); }

// The release threshold of `device`'s memory pool (cudaMemPoolAttrReleaseThreshold): at each
// synchronisation the pool returns the memory it holds beyond this many bytes, freed but
// reserved, to the driver. nax sets it to "everything" (UINT64_MAX) when it first uses a
// device, so that memory freed by one step is reused by the next instead of mapped again;
// the price is that other allocators (cudaMalloc: cuBLAS's workspace, NCCL, other libraries)
// cannot have it. A lower threshold caps what the pool keeps; 0 returns all of it at every
// synchronisation (CUDA's own default). Raises device_error for a device that does not exist
// or has no memory pools.
inline void set_pool_release_threshold(std::uint64_t bytes, int device) {
  const auto& s = detail::state(device);
  if (!s.pool)
    throw device_error("nax: CUDA device " + std::to_string(device) + " has no memory pools (cudaMallocAsync)");
  detail::device_guard guard(device);
  NAX_CUDA_CHECK(cudaMemPoolSetAttribute(s.pool, cudaMemPoolAttrReleaseThreshold, &bytes));
}
inline void set_pool_release_threshold(std::uint64_t bytes) { set_pool_release_threshold(bytes, current_device()); }
inline std::uint64_t pool_release_threshold(int device) {
  const auto& s = detail::state(device);
  if (!s.pool)
    throw device_error("nax: CUDA device " + std::to_string(device) + " has no memory pools (cudaMallocAsync)");
  std::uint64_t bytes = 0;
  NAX_CUDA_CHECK(cudaMemPoolGetAttribute(s.pool, cudaMemPoolAttrReleaseThreshold, &bytes));
  return bytes;
}
inline std::uint64_t pool_release_threshold() { return pool_release_threshold(current_device()); }

namespace detail {
// Copies `bytes` from `from` (memory of device `source`) to `to` (memory of device
// `destination`) on the destination's nax stream with cudaMemcpyPeerAsync (which needs no peer
// access between the devices' memory pools), ordered after the work queued on the source's
// stream before the call (the source's writes), and before any work queued there after it (a
// cudaFreeAsync of the source): an event each way.
inline void copy_across_devices(void* to, int destination, const void* from, int source, std::size_t bytes) {
  cudaEvent_t written = nullptr, read = nullptr;
  {
    device_guard guard(source);
    NAX_CUDA_CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    NAX_CUDA_CHECK(cudaEventRecord(written, stream(source)));
  }
  device_guard guard(destination);
  const cudaStream_t to_stream = stream(destination);
  NAX_CUDA_CHECK(cudaStreamWaitEvent(to_stream, written, 0));
  NAX_CUDA_CHECK(cudaMemcpyPeerAsync(to, destination, from, source, bytes, to_stream));
  NAX_CUDA_CHECK(cudaEventCreateWithFlags(&read, cudaEventDisableTiming));
  NAX_CUDA_CHECK(cudaEventRecord(read, to_stream));
  {
    device_guard back(source);
    NAX_CUDA_CHECK(cudaStreamWaitEvent(stream(source), read, 0));
  }
  // Destroying a recorded event is deferred by the runtime until it completes.
  NAX_CUDA_CHECK(cudaEventDestroy(written));
  NAX_CUDA_CHECK(cudaEventDestroy(read));
}

// Waits for the nax streams of every device nax has used so far (no new streams are made).
inline void synchronize_used_devices() {
  std::vector<std::pair<int, cudaStream_t>> used;
  {
    auto& [mutex, states] = all_states();
    std::lock_guard lock(mutex);
    for (std::size_t d = 0; d < states.size(); ++d)
      if (states[d]) used.emplace_back(static_cast<int>(d), states[d]->stream);
  }
  for (auto [device, s] : used) {
    device_guard guard(device);
    NAX_CUDA_CHECK(cudaStreamSynchronize(s));
  }
}
}  // namespace detail

}  // namespace nax::cuda
