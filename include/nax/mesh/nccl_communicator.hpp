// NCCL under nax's collectives: nccl_communicator implements the communicator interface
// (communicator.hpp) with NCCL on the nax stream of its device; nccl_runtime makes, once per
// Mesh, one communicator per device for every combination of mesh axes (ncclCommInitAll over
// the mesh's devices, then ncclCommSplit per axis combination) and runs each device of the
// mesh on its own thread with that device current. nax::cuda::devices() gives the device list
// a Mesh is built over: `nax::Mesh<data, model> mesh(nax::cuda::devices(), {4, 2});`.
//
// Buffers may be memory of the communicator's device (used in place), host memory (staged
// through device memory: the host backend computes a device's local part today, so xmap over a
// GPU mesh works, with NCCL moving the data) or another GPU's memory (staged by a peer copy).
// A collective of zero elements moves nothing and does not call NCCL (whose pointer checks,
// NCCL_CHECK_POINTERS=1, reject the null buffers of empty arrays even then); every member of a
// group passes the same count, so all of them skip it. Each call returns when this member's
// output is complete (the stream is synchronised), as the interface requires. Every NCCL and
// CUDA status is checked and raised as nax::device_error naming the call and NCCL's reason.
//
// Failures end waits instead of hanging them. A member waits for its collective by polling
// (polled_wait.hpp): an error NCCL reports asynchronously (a peer process gone, a network fault)
// becomes device_error, and, in a one-process mesh, a device that throws raises the mesh's abort
// flag, so that the devices waiting for it in NCCL cancel their part (ncclCommAbort) and raise
// peer_failure; Mesh::run rethrows the original failure. A mesh whose communicators were
// cancelled is unusable: its next run raises device_error saying why (build a new Mesh).
// Not covered: a peer that fails before NCCL's lazy connection setup inside the first
// collective of a kind leaves the caller blocked in that NCCL call (docs/cuda.md).
// Limits: NCCL has no 16-bit integer or bool arithmetic, so all_reduce / reduce_scatter of
// int16, uint16 and bool raise argument_error (data movement of those types works).
#pragma once
#include <nccl.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "../backend/cuda/buffer.hpp"
#include "communicator.hpp"
#include "devices.hpp"
#include "host_barrier.hpp"
#include "polled_wait.hpp"
#include "runtime.hpp"
#include "thread_pool.hpp"

namespace nax::cuda::detail {

inline std::string nccl_error_text(ncclResult_t status, const char* call) {
  std::string text = std::string("nax: NCCL call ") + call + " failed: " + ncclGetErrorString(status);
  if (const char* last = ncclGetLastError(nullptr); last && *last) text += std::string(" (") + last + ")";
  return text;
}

inline void check_nccl(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw device_error(nccl_error_text(status, call));
}

}  // namespace nax::cuda::detail

#define NAX_NCCL_CHECK(...) ::nax::cuda::detail::check_nccl((__VA_ARGS__), #__VA_ARGS__)

namespace nax::cuda::detail {

using nax::detail::dtype;
using nax::detail::reduce_op;

// The NCCL type of a dtype for arithmetic; false where NCCL has none.
inline bool nccl_arithmetic_type(dtype type, ncclDataType_t& out) {
  switch (type) {
    case dtype::f32: out = ncclFloat32; return true;
    case dtype::f64: out = ncclFloat64; return true;
    case dtype::i8: out = ncclInt8; return true;
    case dtype::u8: out = ncclUint8; return true;
    case dtype::i32: out = ncclInt32; return true;
    case dtype::u32: out = ncclUint32; return true;
    case dtype::i64: out = ncclInt64; return true;
    case dtype::u64: out = ncclUint64; return true;
    default: return false;
  }
}

inline ncclRedOp_t nccl_op(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return ncclSum;
    case reduce_op::prod: return ncclProd;
    case reduce_op::max: return ncclMax;
    case reduce_op::min: return ncclMin;
  }
  throw argument_error("nax: NCCL: invalid reduce_op");
}

// A buffer as NCCL needs it: memory of the communicator's device (or managed memory) as it is;
// host memory, and memory of another GPU (whose pool need not be peer-accessible from this
// one), copied into a scratch buffer on this device (in: before the call) and back (out: after
// it). Another GPU's memory is copied with cudaMemcpyPeerAsync on this device's stream: the
// caller has completed the work that writes it, as for host memory (waiting for that GPU's
// stream here could wait behind its own part of this collective). An empty buffer (bytes == 0,
// often a null pointer) is never looked at.
class device_staging {
 public:
  device_staging(const void* p, std::size_t bytes, bool copy_in, int device, cudaStream_t stream)
      : user_(const_cast<void*>(p)), bytes_(bytes), stream_(stream), device_(device) {
    if (bytes == 0) {
      data_ = user_;
      return;
    }
    cudaPointerAttributes attributes{};
    NAX_CUDA_CHECK(cudaPointerGetAttributes(&attributes, p));
    if (attributes.type == cudaMemoryTypeManaged ||
        (attributes.type == cudaMemoryTypeDevice && attributes.device == device)) {
      data_ = user_;
      return;
    }
    if (attributes.type == cudaMemoryTypeDevice) user_device_ = attributes.device;
    scratch_ = device_buffer<unsigned char>(bytes, device);
    data_ = scratch_.data();
    if (copy_in) copy(data_, device_, user_, user_device_);
  }
  void* get() const { return data_; }
  // After the collective: a staged output receives the result.
  void copy_out() const {
    if (data_ != user_) copy(user_, user_device_, data_, device_);
  }

 private:
  // Device -1 is host memory.
  void copy(void* to, int to_device, const void* from, int from_device) const {
    if (to_device >= 0 && from_device >= 0)
      NAX_CUDA_CHECK(cudaMemcpyPeerAsync(to, to_device, from, from_device, bytes_, stream_));
    else
      NAX_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes_, to_device >= 0 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                     stream_));
  }

  void* user_;
  std::size_t bytes_;
  cudaStream_t stream_;
  int device_;
  int user_device_ = -1;  // the GPU of a staged device buffer; -1: host memory
  void* data_ = nullptr;
  device_buffer<unsigned char> scratch_;
};

class nccl_communicator final : public nax::detail::communicator {
 public:
  NAX_COMMUNICATOR_USING_WRAPPERS;

  // Takes ownership of comm (destroyed with the communicator, or cancelled by abort()). `abort`:
  // the flag the mesh raises when one of its devices fails (one process), or null.
  nccl_communicator(ncclComm_t comm, int device, std::string name,
                    nax::detail::host_abort_state const* abort = nullptr)
      : comm_(comm), device_(device), name_(std::move(name)), abort_(abort) {
    NAX_NCCL_CHECK(ncclCommCount(comm_, &size_));
    NAX_NCCL_CHECK(ncclCommUserRank(comm_, &rank_));
    device_guard guard(device_);
    stream_ = nax::cuda::stream(device_);
    token_ = device_buffer<int>(1, device_);
  }
  nccl_communicator(const nccl_communicator&) = delete;
  nccl_communicator& operator=(const nccl_communicator&) = delete;
  ~nccl_communicator() override {
    if (comm_) (void)ncclCommDestroy(comm_);
  }

  int size() const override { return size_; }
  int rank() const override { return rank_; }
  int device() const { return device_; }
  ncclComm_t native() const { return comm_; }
  bool aborted() const { return comm_ == nullptr; }
  // Cancels this member's communicator (ncclCommAbort ends what still runs on the device) after
  // `why`; later calls raise device_error. Safe to call more than once.
  void abort(std::string const& why) noexcept {
    if (!comm_) return;
    int previous = -1;
    const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != device_ &&
                          cudaSetDevice(device_) == cudaSuccess;
    (void)ncclCommAbort(comm_);
    comm_ = nullptr;
    if (switched) (void)cudaSetDevice(previous);
    try {
      aborted_because_ = why;
    } catch (...) {
    }
  }

  void all_reduce(void* data, index_t count, dtype type, reduce_op op) override {
    const auto t = arithmetic_type(type, "all_reduce");
    check_count(count, "all_reduce");
    begin("all_reduce");
    device_guard guard(device_);
    device_staging buffer(data, bytes(count, type), true, device_, stream_);
    if (count > 0)
      NAX_NCCL_CHECK(ncclAllReduce(buffer.get(), buffer.get(), static_cast<std::size_t>(count), t, nccl_op(op), comm_, stream_));
    finish("all_reduce", buffer);
  }
  void all_gather(const void* send, void* recv, index_t count, dtype type) override {
    check_count(count, "all_gather");
    begin("all_gather");
    device_guard guard(device_);
    device_staging in(send, bytes(count, type), true, device_, stream_);
    device_staging out(recv, bytes(count, type) * static_cast<std::size_t>(size_), false, device_, stream_);
    if (count > 0) NAX_NCCL_CHECK(ncclAllGather(in.get(), out.get(), bytes(count, type), ncclUint8, comm_, stream_));
    finish("all_gather", out);
  }
  void reduce_scatter(const void* send, void* recv, index_t count, dtype type, reduce_op op) override {
    const auto t = arithmetic_type(type, "reduce_scatter");
    check_count(count, "reduce_scatter");
    begin("reduce_scatter");
    device_guard guard(device_);
    device_staging in(send, bytes(count, type) * static_cast<std::size_t>(size_), true, device_, stream_);
    device_staging out(recv, bytes(count, type), false, device_, stream_);
    if (count > 0)
      NAX_NCCL_CHECK(ncclReduceScatter(in.get(), out.get(), static_cast<std::size_t>(count), t, nccl_op(op), comm_, stream_));
    finish("reduce_scatter", out);
  }
  void all_to_all(const void* send, void* recv, index_t count, dtype type) override {
    check_count(count, "all_to_all");
    begin("all_to_all");
    device_guard guard(device_);
    const std::size_t block = bytes(count, type);
    device_staging in(send, block * static_cast<std::size_t>(size_), true, device_, stream_);
    device_staging out(recv, block * static_cast<std::size_t>(size_), false, device_, stream_);
    auto* s = static_cast<const unsigned char*>(in.get());
    auto* r = static_cast<unsigned char*>(out.get());
    if (block > 0) {
      NAX_NCCL_CHECK(ncclGroupStart());
      for (int peer = 0; peer < size_; ++peer) {
        NAX_NCCL_CHECK(ncclSend(s + block * static_cast<std::size_t>(peer), block, ncclUint8, peer, comm_, stream_));
        NAX_NCCL_CHECK(ncclRecv(r + block * static_cast<std::size_t>(peer), block, ncclUint8, peer, comm_, stream_));
      }
      NAX_NCCL_CHECK(ncclGroupEnd());
    }
    finish("all_to_all", out);
  }
  void permute(const void* send, void* recv, index_t count, dtype type,
               const nax::detail::permutation& pairs) override {
    check_count(count, "permute");
    nax::detail::validate_permutation(pairs, size_, "permute");
    begin("permute");
    device_guard guard(device_);
    const std::size_t block = bytes(count, type);
    device_staging in(send, block, true, device_, stream_);
    device_staging out(recv, block, false, device_, stream_);
    const int source = nax::detail::permutation_source(pairs, rank_);
    const int destination = nax::detail::permutation_destination(pairs, rank_);
    if (block > 0) {
      if (source == rank_) NAX_CUDA_CHECK(cudaMemcpyAsync(out.get(), in.get(), block, cudaMemcpyDeviceToDevice, stream_));
      if (source < 0) NAX_CUDA_CHECK(cudaMemsetAsync(out.get(), 0, block, stream_));
      const bool sends = destination >= 0 && destination != rank_;
      const bool receives = source >= 0 && source != rank_;
      if (sends || receives) {
        NAX_NCCL_CHECK(ncclGroupStart());
        if (sends) NAX_NCCL_CHECK(ncclSend(in.get(), block, ncclUint8, destination, comm_, stream_));
        if (receives) NAX_NCCL_CHECK(ncclRecv(out.get(), block, ncclUint8, source, comm_, stream_));
        NAX_NCCL_CHECK(ncclGroupEnd());
      }
    }
    finish("permute", out);
  }
  void barrier() override {
    begin("barrier");
    device_guard guard(device_);
    NAX_NCCL_CHECK(ncclAllReduce(token_.data(), token_.data(), 1, ncclInt32, ncclSum, comm_, stream_));
    finish("barrier");
  }
  bool reads_device_memory() const override { return true; }
  std::string describe() const override {
    return "nccl group " + name_ + " (" + std::to_string(size_) + " members), member " + std::to_string(rank_);
  }

 private:
  static std::size_t bytes(index_t count, dtype type) {
    return static_cast<std::size_t>(count) * nax::detail::dtype_size(type);
  }
  static void check_count(index_t count, const char* call) {
    if (count < 0)
      throw argument_error(std::string(call) + ": negative count " + std::to_string(count));
  }
  static ncclDataType_t arithmetic_type(dtype type, const char* call) {
    ncclDataType_t t{};
    if (!nccl_arithmetic_type(type, t))
      throw argument_error(std::string(call) + ": NCCL has no reduction for dtype " +
                           std::string(nax::detail::dtype_name(type)));
    return t;
  }
  // Before enqueueing: a cancelled communicator, or a mesh whose abort flag is already up, never
  // reaches NCCL (a peer that failed will not join).
  void begin(const char* call) const {
    if (!comm_)
      throw device_error(describe() + ": " + call + ": this NCCL communicator was cancelled after " +
                         aborted_because_ + "; build a new Mesh");
    if (abort_ && abort_->aborted()) abort_->raise(call);
  }
  // Returns when this member's part is complete and `output`'s host copy (if staged) has been
  // written. The collective is waited for first, by polling (polled_wait.hpp): the copy back
  // from device memory into pageable host memory blocks the calling thread until it is done,
  // so enqueued behind a collective whose peer never joins it would hang here for good, and
  // into pinned memory it would still write after a cancellation.
  void finish(const char* call, const device_staging& output) {
    finish(call);
    output.copy_out();
    NAX_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void finish(const char* call) {
    nax::detail::wait_polling(
        [&] {
          const cudaError_t status = cudaStreamQuery(stream_);
          if (status == cudaSuccess) return nax::detail::poll_result::done;
          if (status != cudaErrorNotReady) {
            (void)cudaGetLastError();
            abort(std::string("a CUDA error in ") + call);
            throw_cuda_error(status, "cudaStreamQuery (waiting for an NCCL collective)");
          }
          ncclResult_t state = ncclSuccess;
          if (const ncclResult_t queried = ncclCommGetAsyncError(comm_, &state); queried != ncclSuccess) state = queried;
          if (state != ncclSuccess && state != ncclInProgress) {
            std::string text = nccl_error_text(state, "ncclCommGetAsyncError") + ", in " + call + " of " + describe();
            abort(text);
            throw device_error(text);
          }
          return nax::detail::poll_result::pending;
        },
        abort_, [&] { abort(std::string("another device of the mesh failed during ") + call); }, call);
  }

  ncclComm_t comm_ = nullptr;
  int device_ = 0;
  std::string name_;
  nax::detail::host_abort_state const* abort_ = nullptr;
  std::string aborted_because_;
  int size_ = 0, rank_ = 0;
  cudaStream_t stream_ = nullptr;
  device_buffer<int> token_;
};

// The communicators of a mesh over CUDA devices, made once with the mesh.
class nccl_runtime final : public nax::detail::mesh_runtime {
 public:
  nccl_runtime(std::vector<int> device_ids, const nax::detail::mesh_geometry& geometry)
      : ids_(std::move(device_ids)), geometry_(geometry), pool_(static_cast<int>(ids_.size())) {
    const int n = static_cast<int>(ids_.size());
    for (int d = 0; d < n; ++d) local_.push_back(d);
    const nax::detail::axis_mask sets = nax::detail::axis_mask{1} << geometry.rank();
    comms_.resize(sets);
    // Position d of the mesh has rank d in the world communicator (row-major = all axes).
    std::vector<ncclComm_t> world(static_cast<std::size_t>(n));
    NAX_NCCL_CHECK(ncclCommInitAll(world.data(), n, ids_.data()));
    for (nax::detail::axis_mask axes = 1; axes < sets; ++axes) {
      auto& members = comms_[axes];
      std::vector<ncclComm_t> split(static_cast<std::size_t>(n), nullptr);
      if (axes == geometry.all_axes()) {
        split = world;
      } else {
        NAX_NCCL_CHECK(ncclGroupStart());
        for (int d = 0; d < n; ++d)
          NAX_NCCL_CHECK(ncclCommSplit(world[static_cast<std::size_t>(d)], geometry.group_index(d, axes),
                                       geometry.rank_in_group(d, axes), &split[static_cast<std::size_t>(d)], nullptr));
        NAX_NCCL_CHECK(ncclGroupEnd());
      }
      for (int d = 0; d < n; ++d)
        members.push_back(std::make_unique<nccl_communicator>(split[static_cast<std::size_t>(d)],
                                                              ids_[static_cast<std::size_t>(d)],
                                                              "over " + geometry.group_text(d, axes), &abort_));
    }
    if (geometry.rank() == 0) {  // a mesh of no axes: the world communicators are unused
      for (auto comm : world) (void)ncclCommDestroy(comm);
    }
  }

  nax::detail::communicator& comm(nax::detail::axis_mask axes, int device) override {
    return *comms_.at(axes).at(static_cast<std::size_t>(device));
  }
  bool is_local(int device) const override { return device >= 0 && device < static_cast<int>(ids_.size()); }
  std::vector<int> const& local_devices() const override { return local_; }

  // A device that throws raises the abort flag, so that the others stop waiting for it inside
  // NCCL (nccl_communicator::finish); run then rethrows the original failure. If any of them had
  // to cancel a communicator, every communicator of the mesh is cancelled (their peers' halves
  // are gone) and later runs raise device_error.
  void run(std::function<void(int device)> const& body) override {
    if (pool_.is_worker_thread())
      throw device_error("Mesh::run: called from inside a device of the same mesh (nested run "
                         "would wait for itself)");
    std::lock_guard serial(run_mutex_);
    if (!cancelled_because_.empty())
      throw device_error("Mesh over CUDA devices: its NCCL communicators were cancelled in an earlier run, when " +
                         cancelled_because_ + "; build a new Mesh");
    auto failures = pool_.run([&](int d) {
      abort_.run_device(d, [&] {
        device_guard guard(ids_[static_cast<std::size_t>(d)]);
        body(d);
      });
    });
    if (abort_.aborted()) {
      bool cancelled = false;
      for (auto const& members : comms_)
        for (auto const& member : members) cancelled = cancelled || member->aborted();
      if (cancelled) {
        cancelled_because_ = abort_.reason();
        for (auto& members : comms_)
          for (auto& member : members) member->abort(cancelled_because_);
      }
      abort_.reset();
    }
    nax::detail::rethrow_first_failure(failures);
  }

 private:
  std::vector<int> ids_;
  nax::detail::mesh_geometry geometry_;
  nax::detail::host_abort_state abort_;  // before the communicators: they hold its address
  nax::detail::device_thread_pool pool_;
  std::vector<int> local_;
  std::vector<std::vector<std::unique_ptr<nccl_communicator>>> comms_;
  std::mutex run_mutex_;
  std::string cancelled_because_;  // empty while the communicators are usable
};

class cuda_platform final : public nax::detail::device_platform {
 public:
  std::shared_ptr<nax::detail::mesh_runtime> make_runtime(std::vector<int> const& device_ids,
                                                          nax::detail::mesh_geometry const& geometry) const override {
    return std::make_shared<nccl_runtime>(device_ids, geometry);
  }
};

}  // namespace nax::cuda::detail

namespace nax::cuda {

// The CUDA devices of this process as a device list for a Mesh (collectives through NCCL);
// devices(n): the first n. Raises device_error when there are fewer.
inline device_list devices(int n) {
  const int available = device_count();
  if (n < 1 || n > available)
    throw device_error("nax::cuda::devices(" + std::to_string(n) + "): " + std::to_string(available) +
                       " CUDA devices are available");
  static auto const platform = std::make_shared<const detail::cuda_platform>();
  std::vector<int> ids(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
  return device_list(device_kind::cuda, std::move(ids), platform);
}
inline device_list devices() { return devices(device_count()); }

}  // namespace nax::cuda
