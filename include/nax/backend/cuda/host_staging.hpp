// Device data handed to a communicator that reads host memory (host threads, MPI): copied to
// a host buffer, waiting for the device's stream, then copied back after the collective.
// NCCL's communicators read device memory in place and need none of this.
#pragma once
#include <cstddef>
#include <memory>

#include "device.hpp"

namespace nax::cuda::detail {

template <class T>
class host_staging {
 public:
  // count elements at device_data (on `device`); copy_in: read them now (an input).
  host_staging(const T* device_data, index_t count, int device, bool copy_in)
      : count_(static_cast<std::size_t>(count)), device_(device), host_(new T[count_ > 0 ? count_ : 1]) {
    if (!copy_in || count_ == 0) return;
    device_guard guard(device_);
    NAX_CUDA_CHECK(cudaMemcpyAsync(host_.get(), device_data, count_ * sizeof(T), cudaMemcpyDeviceToHost,
                                   nax::cuda::stream(device_)));
    NAX_CUDA_CHECK(cudaStreamSynchronize(nax::cuda::stream(device_)));
  }
  T* data() { return host_.get(); }
  // The collective's output back into device memory (returns once the host buffer is read).
  void copy_back(T* device_data) {
    if (count_ == 0) return;
    device_guard guard(device_);
    NAX_CUDA_CHECK(cudaMemcpyAsync(device_data, host_.get(), count_ * sizeof(T), cudaMemcpyHostToDevice,
                                   nax::cuda::stream(device_)));
    NAX_CUDA_CHECK(cudaStreamSynchronize(nax::cuda::stream(device_)));
  }

 private:
  std::size_t count_;
  int device_;
  std::unique_ptr<T[]> host_;
};

// comm.all_reduce / all_gather on device buffers of `device`: in place when the communicator
// reads device memory, through host copies otherwise.
// (op...: the reduce_op, or none for a sum.)
template <class Communicator, class T, class... Op>
void all_reduce_device_buffer(Communicator& comm, T* data, index_t count, int device, Op... op) {
  if (comm.reads_device_memory()) return comm.all_reduce(data, count, op...);
  host_staging<T> staged(data, count, device, true);
  comm.all_reduce(staged.data(), count, op...);
  staged.copy_back(data);
}
template <class Communicator, class T>
void all_gather_device_buffer(Communicator& comm, const T* send, T* recv, index_t count, int device) {
  if (comm.reads_device_memory()) return comm.all_gather(send, recv, count);
  host_staging<T> in(send, count, device, true);
  host_staging<T> out(recv, count * comm.size(), device, false);
  comm.all_gather(in.data(), out.data(), count);
  out.copy_back(recv);
}

template <class Communicator, class T, class... Op>
void reduce_scatter_device_buffer(Communicator& comm, const T* send, T* recv, index_t count, int device, Op... op) {
  if (comm.reads_device_memory()) return comm.reduce_scatter(send, recv, count, op...);
  host_staging<T> in(send, count * comm.size(), device, true);
  host_staging<T> out(recv, count, device, false);
  comm.reduce_scatter(in.data(), out.data(), count, op...);
  out.copy_back(recv);
}
template <class Communicator, class T>
void all_to_all_device_buffer(Communicator& comm, const T* send, T* recv, index_t count, int device) {
  if (comm.reads_device_memory()) return comm.all_to_all(send, recv, count);
  host_staging<T> in(send, count * comm.size(), device, true);
  host_staging<T> out(recv, count * comm.size(), device, false);
  comm.all_to_all(in.data(), out.data(), count);
  out.copy_back(recv);
}
template <class Communicator, class T, class Pairs>
void permute_device_buffer(Communicator& comm, const T* send, T* recv, index_t count, int device,
                           const Pairs& pairs) {
  if (comm.reads_device_memory()) return comm.permute(send, recv, count, pairs);
  host_staging<T> in(send, count, device, true);
  host_staging<T> out(recv, count, device, false);
  comm.permute(in.data(), out.data(), count, pairs);
  out.copy_back(recv);
}

}  // namespace nax::cuda::detail
