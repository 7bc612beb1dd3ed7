// DLPack for device arrays (included by <nax/cuda.hpp>; needs the CUDA runtime's headers):
//   nax::to_dlpack(std::move(d)) and to_dlpack_versioned of a nax::cuda::Array: a kDLCUDA tensor
//     on d's device, row-major with explicit strides; its deleter frees d's memory.
//   nax::cuda::from_dlpack<T, As...>(m[, device]): a kDLCUDA (or kDLCUDAManaged) tensor viewed as
//     a nax::cuda::ArrayView with axis names, without a copy; m's deleter runs once, when the
//     last copy of the view (or a leaf made from it) goes.
// The host's checks (io/dlpack.hpp's dlpack_layout: element type, rank, shape, data, strides,
// alignment) apply as they are; ownership is the host's (from_dlpack takes m over only when it
// succeeds). What DLPack's C structs cannot say is when the memory is ready: a DLPack tensor
// carries no stream, so nax waits at the hand-overs (to_dlpack: nax's stream of the array's
// device, so that the consumer may read on any stream; its deleter: the whole device, so that
// the consumer's reads on its own streams end before the memory goes back to nax's pool;
// from_dlpack: the whole device, so that the producer's writes are complete; letting go of the
// tensor: nax's stream there, so that nax's reads end before the producer's deleter runs).
// io layer, above backend/cuda/.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "../backend/cuda/array.hpp"
#include "../backend/cuda/device.hpp"
#include "../backend/cuda/error.hpp"
#include "../core/errors.hpp"
#include "dlpack.hpp"

namespace nax::detail {

// to_dlpack of a nax::cuda::Array: a kDLCUDA tensor on the array's device.
template <class T, class... As>
struct dlpack_exporter<nax::cuda::Array<T, As...>> {
  static constexpr bool exportable = true;
  // The deleter: the consumer may have queued reads on streams of its own; wait for the device
  // before the memory goes back to nax's pool (where nax's next allocation could reuse it).
  static void before_free(nax::cuda::Array<T, As...>& a) noexcept {
    if (a.size() == 0) return;
    int previous = 0;
    (void)cudaGetDevice(&previous);
    if (previous != a.device()) (void)cudaSetDevice(a.device());
    (void)cudaDeviceSynchronize();
    if (previous != a.device()) (void)cudaSetDevice(previous);
  }
  template <class Managed>
  static Managed* make(nax::cuda::Array<T, As...>&& a) {
    const int device = a.device();
    // The values are written (nax's stream) before a consumer reads them on any stream.
    if (a.size()) nax::cuda::synchronize(device);
    using exported = dlpack_export<Managed, dlpack_exporter, nax::cuda::Array<T, As...>>;
    return &(new exported(std::move(a), {dlpack::kDLCUDA, static_cast<std::int32_t>(device)}))->managed;
  }
};

// "the tensor (float32, 2 dimensions)": what a device refusal says it found.
inline std::string dlpack_tensor_text(const dlpack::DLTensor& t) {
  return "the tensor (" + dlpack_dtype_text(t.dtype) + ", " + std::to_string(t.ndim) +
         (t.ndim == 1 ? " dimension)" : " dimensions)");
}

// The device checks of nax::cuda::from_dlpack: CUDA memory (kDLCUDA, or kDLCUDAManaged, which
// the device reads too; before the layout's checks) ...
inline void dlpack_check_cuda_memory(const dlpack::DLTensor& t, const std::string& what) {
  const std::string tensor = dlpack_tensor_text(t);
  const auto type = t.device.device_type;
  if (type != dlpack::kDLCUDA && type != dlpack::kDLCUDAManaged) {
    const bool host = type == dlpack::kDLCPU || type == dlpack::kDLCUDAHost;
    throw argument_error(what + tensor + " lives on " + dlpack_device_text(t.device) +
                         ", not in CUDA device memory (kDLCUDA or kDLCUDAManaged)" +
                         (host ? "; view it on the host with nax::from_dlpack<T, axes...>(m), then copy it with "
                                 "nax::cuda::to_device"
                               : ""));
  }
}
// ... on a device this process sees, and the one asked for, if one was (device >= 0; after the
// layout's checks, which need no device).
inline void dlpack_check_cuda_device(const dlpack::DLTensor& t, int device, const std::string& what) {
  const std::string tensor = dlpack_tensor_text(t);
  const int id = t.device.device_id, count = nax::cuda::device_count();
  if (id < 0 || id >= count)
    throw argument_error(what + tensor + " lives on " + dlpack_device_text(t.device) + ", but this process sees " +
                         (count == 0 ? std::string("no CUDA device")
                                     : std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") +
                                           " (0 to " + std::to_string(count - 1) + ")"));
  if (device >= 0 && id != device)
    throw argument_error(what + tensor + " lives on " + dlpack_device_text(t.device) + ", not on CUDA device " +
                         std::to_string(device) + ", where it must be read");
}

}  // namespace nax::detail

namespace nax::cuda {

// A tensor another library made on a CUDA device, viewed with axis names: view() is a
// nax::cuda::ArrayView over its memory (no copy), on the tensor's device. Copies share it; the
// producer's deleter runs once, when the last copy (and the last leaf()) goes.
template <class T, class... As>
class dlpack_tensor {
 public:
  const ArrayView<T, As...>& view() const { return view_; }
  const std::array<index_t, sizeof...(As)>& extents() const { return view_.extents(); }
  int device() const { return view_.device(); }
  // An expression leaf that keeps the tensor alive (for an expression that outlives this).
  auto leaf() const { return leaf_of(view_, owner_); }

  // Takes m over once its tensor passes the checks (from_dlpack calls it; on an error nothing
  // is taken over). device < 0: any device of this process.
  template <class Managed>
  static dlpack_tensor adopt(Managed* m, bool read_only, int device) {
    if (!m) throw argument_error("nax: cuda::from_dlpack: the DLPack tensor is a null pointer");
    const dlpack::DLTensor& t = m->dl_tensor;
    const std::string what = nax::detail::dlpack_what<T, As...>("cuda::from_dlpack");
    nax::detail::dlpack_check_cuda_memory(t, what);
    const auto layout = nax::detail::dlpack_layout<T, As...>(t, read_only, what);
    nax::detail::dlpack_check_cuda_device(t, device, what);
    const int on = t.device.device_id;
    // The producer's writes, on whatever stream it used, complete before nax's kernels read.
    cudaStream_t nax_stream = nullptr;
    {
      nax::cuda::detail::device_guard guard(on);
      NAX_CUDA_CHECK(cudaDeviceSynchronize());
      nax_stream = nax::cuda::stream(on);
    }
    // nax's reads (queued on its stream) end before the producer gets the memory back.
    auto owner = nax::detail::dlpack_owner(m, [nax_stream]() noexcept { (void)cudaStreamSynchronize(nax_stream); });
    return dlpack_tensor(ArrayView<T, As...>(layout.data(), layout.extents(), layout.strides(), on), std::move(owner));
  }

 private:
  dlpack_tensor(ArrayView<T, As...> v, std::shared_ptr<const void> owner) : view_(v), owner_(std::move(owner)) {}
  ArrayView<T, As...> view_;
  std::shared_ptr<const void> owner_;
};

// from_dlpack<T, As...>(m): m's tensor, in CUDA device memory (kDLCUDA, or kDLCUDAManaged), as
// a dlpack_tensor with the axis names As (one per dimension, in m's order), no copy. T must be
// m's element type exactly; const T for a read-only versioned tensor. Strides of any order and
// byte offsets are kept. The tensor must be on a device this process sees; from_dlpack(m,
// device) also requires that device. A refusal (nax::argument_error or shape_error, naming
// what it found) leaves m to the caller. Waits for m's device first (the producer's writes).
template <class T, class... As>
dlpack_tensor<T, As...> from_dlpack(dlpack::DLManagedTensor* m) {
  return dlpack_tensor<T, As...>::adopt(m, false, -1);
}
template <class T, class... As>
dlpack_tensor<T, As...> from_dlpack(dlpack::DLManagedTensor* m, int device) {
  if (device < 0) throw argument_error("nax: cuda::from_dlpack: device " + std::to_string(device) + " is negative");
  return dlpack_tensor<T, As...>::adopt(m, false, device);
}
template <class T, class... As>
dlpack_tensor<T, As...> from_dlpack(dlpack::DLManagedTensorVersioned* m) {
  nax::detail::dlpack_check_version(m, "cuda::from_dlpack");
  return dlpack_tensor<T, As...>::adopt(m, m && (m->flags & dlpack::DLPACK_FLAG_BITMASK_READ_ONLY), -1);
}
template <class T, class... As>
dlpack_tensor<T, As...> from_dlpack(dlpack::DLManagedTensorVersioned* m, int device) {
  if (device < 0) throw argument_error("nax: cuda::from_dlpack: device " + std::to_string(device) + " is negative");
  nax::detail::dlpack_check_version(m, "cuda::from_dlpack");
  return dlpack_tensor<T, As...>::adopt(m, m && (m->flags & dlpack::DLPACK_FLAG_BITMASK_READ_ONLY), device);
}

}  // namespace nax::cuda
