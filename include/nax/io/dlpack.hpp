// DLPack: nax arrays shared with numpy, PyTorch, JAX, CuPy and C++ libraries without a copy.
// nax::to_dlpack(std::move(a)) hands an Array's memory to a consumer as a DLManagedTensor
// (its deleter frees the array); nax::from_dlpack<T, As...>(m) views a producer's tensor with
// axis names and calls m's deleter once, when the last copy of the view goes.
//
// The structs are DLPack's ABI (dlpack.h, versions 0.x legacy and 1.x versioned), written here
// from the specification, because no Debian package ships the header. They are layout-
// compatible with dlpack.h's: a pointer from code that includes it is passed with a
// reinterpret_cast. Ownership follows the specification: to_dlpack gives the consumer the
// tensor (it must call the deleter once); from_dlpack takes it only when it succeeds (on an
// error it throws and the caller still owns m, as a Python capsule that was not consumed).
// Host memory here (kDLCPU, and the host-accessible kDLCUDAHost and kDLCUDAManaged); a kDLCUDA
// tensor is refused by name, pointing to nax::cuda::from_dlpack. Device tensors are
// io/dlpack_cuda.hpp's (included by <nax/cuda.hpp>): to_dlpack of a nax::cuda::Array and
// nax::cuda::from_dlpack, through the hooks below (dlpack_exporter, dlpack_layout).
// io layer: core/ and expr/node.hpp (a leaf that owns the tensor).
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "../core/array.hpp"
#include "../core/errors.hpp"
#include "../expr/node.hpp"

namespace nax::dlpack {

enum DLDeviceType : std::int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
};
struct DLDevice {
  DLDeviceType device_type;
  std::int32_t device_id;
};
enum DLDataTypeCode : std::uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLOpaqueHandle = 3, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: compact and row-major
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};
inline constexpr std::uint64_t DLPACK_FLAG_BITMASK_READ_ONLY = 1ULL << 0;
inline constexpr std::uint64_t DLPACK_FLAG_BITMASK_IS_COPIED = 1ULL << 1;
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  std::uint64_t flags;
  DLTensor dl_tensor;
};
inline constexpr DLPackVersion version{1, 1};  // what to_dlpack_versioned writes

}  // namespace nax::dlpack

namespace nax {
namespace detail {

template <class T>
struct require_dlpack_element {
  static_assert(std::is_same_v<T, bool> || std::is_integral_v<T> || std::is_same_v<T, float> ||
                    std::is_same_v<T, double>,
                "nax: DLPack: the element type T has no DLPack data type here; use bool, an integer type, float "
                "or double");
  static constexpr bool value = true;
};

template <class T>
constexpr dlpack::DLDataType dlpack_dtype() {
  using U = std::remove_const_t<T>;
  static_assert(require_dlpack_element<U>::value);
  const auto bits = static_cast<std::uint8_t>(8 * sizeof(U));
  if constexpr (std::is_same_v<U, bool>) return {dlpack::kDLBool, bits, 1};
  else if constexpr (std::is_floating_point_v<U>) return {dlpack::kDLFloat, bits, 1};
  else if constexpr (std::is_signed_v<U>) return {dlpack::kDLInt, bits, 1};
  else return {dlpack::kDLUInt, bits, 1};
}

inline std::string dlpack_dtype_text(const dlpack::DLDataType& t) {
  static const char* const names[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
  std::string text = t.code < 7 ? names[t.code] : "type code " + std::to_string(t.code);
  text += std::to_string(t.bits);
  if (t.lanes != 1) text += " x " + std::to_string(t.lanes) + " lanes";
  return text;
}

inline std::string dlpack_device_text(const dlpack::DLDevice& d) {
  switch (d.device_type) {
    case dlpack::kDLCPU: return "the host (kDLCPU, device " + std::to_string(d.device_id) + ")";
    case dlpack::kDLCUDA: return "CUDA device " + std::to_string(d.device_id);
    case dlpack::kDLCUDAHost: return "pinned host memory (kDLCUDAHost, device " + std::to_string(d.device_id) + ")";
    case dlpack::kDLCUDAManaged: return "CUDA managed memory (kDLCUDAManaged, device " + std::to_string(d.device_id) + ")";
    case dlpack::kDLROCM: return "ROCm device " + std::to_string(d.device_id);
    default: return "device type " + std::to_string(static_cast<int>(d.device_type)) + " #" + std::to_string(d.device_id);
  }
}

// What a refusal starts with: "nax: from_dlpack<float32, (a, b)>: " (function: from_dlpack, or
// cuda::from_dlpack).
template <class T, class... As>
std::string dlpack_what(const char* function) {
  const std::string names[] = {std::string(axis_name<As>())..., ""};
  std::string listed;
  for (std::size_t k = 0; k != sizeof...(As); ++k) listed += (k ? ", " : "") + names[k];
  return std::string("nax: ") + function + "<" + dlpack_dtype_text(dlpack_dtype<T>()) + ", (" + listed + ")>: ";
}

// The checks of an incoming tensor's layout (all but its device), before anything is taken
// over; the view when they pass (its pointer is the tensor's, host or device memory alike).
template <class T, class... As>
ArrayView<T, As...> dlpack_layout(const dlpack::DLTensor& t, bool read_only, const std::string& what) {
  constexpr std::size_t n = sizeof...(As);
  const std::string names[] = {std::string(axis_name<As>())..., ""};
  if (t.ndim != static_cast<std::int32_t>(n))
    throw shape_error(what + "the tensor has " + std::to_string(t.ndim) + " dimensions, but " + std::to_string(n) +
                      " axis names were given");
  const dlpack::DLDataType want = dlpack_dtype<T>();
  if (t.dtype.code != want.code || t.dtype.bits != want.bits || t.dtype.lanes != want.lanes)
    throw argument_error(what + "the tensor holds " + dlpack_dtype_text(t.dtype) + ", not " + dlpack_dtype_text(want) +
                         " (nax does not convert: ask for the tensor's type, then cast)");
  if (read_only && !std::is_const_v<T>)
    throw argument_error(what + "the tensor is read-only (DLPACK_FLAG_BITMASK_READ_ONLY); ask for a const element "
                         "type, from_dlpack<const T, ...>");
  if (n != 0 && !t.shape)
    throw argument_error(what + "the tensor has " + std::to_string(n) + " dimensions but no shape (a null pointer)");
  std::array<index_t, n> extents{}, strides{};
  for (std::size_t k = 0; k != n; ++k) {
    extents[k] = static_cast<index_t>(t.shape[k]);
    if (extents[k] < 0)
      throw shape_error(what + "dimension " + std::to_string(k) + " has the negative extent " + std::to_string(extents[k]));
  }
  if (checked_size(axes<As...>{}, extents) != 0 && !t.data)
    throw argument_error(what + "the tensor holds " + std::to_string(checked_size(axes<As...>{}, extents)) +
                         " elements but its data is a null pointer");
  if (t.strides) {
    for (std::size_t k = 0; k != n; ++k) {
      strides[k] = static_cast<index_t>(t.strides[k]);
      if (strides[k] < 0 && extents[k] > 1)
        throw shape_error(what + "dimension " + std::to_string(k) + " ('" + names[k] + "') has the negative stride " + std::to_string(strides[k]) +
                          "; nax views need strides of 0 or more (copy the reversed tensor first)");
    }
  } else {
    strides = row_major_strides(extents);
  }
  if (t.byte_offset % alignof(T) != 0 || reinterpret_cast<std::uintptr_t>(t.data) % alignof(T) != 0)
    throw argument_error(what + "the tensor's data (byte offset " + std::to_string(t.byte_offset) +
                         ") is not aligned to its element's " + std::to_string(alignof(T)) + " bytes");
  T* data = t.data ? reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset) : nullptr;
  return ArrayView<T, As...>(data, extents, strides);
}

// The host's checks: memory the host can read, then the layout.
template <class T, class... As>
ArrayView<T, As...> dlpack_view(const dlpack::DLTensor& t, bool read_only) {
  const std::string what = dlpack_what<T, As...>("from_dlpack");
  const auto type = t.device.device_type;
  if (type == dlpack::kDLCUDA)
    throw argument_error(what + "the tensor lives on " + dlpack_device_text(t.device) +
                         ", which the host cannot read: view it as a device array with nax::cuda::from_dlpack<T, "
                         "axes...>(m) (<nax/cuda.hpp>, nvcc), or copy it to the host first");
  if (type != dlpack::kDLCPU && type != dlpack::kDLCUDAHost && type != dlpack::kDLCUDAManaged)
    throw argument_error(what + "the tensor lives on " + dlpack_device_text(t.device) +
                         ", which the host cannot read; nax's host arrays view kDLCPU, kDLCUDAHost and kDLCUDAManaged "
                         "memory (copy it to the host first)");
  return dlpack_layout<T, As...>(t, read_only, what);
}

// A versioned tensor nax can read (function names the caller in the message).
inline void dlpack_check_version(const dlpack::DLManagedTensorVersioned* m, const char* function) {
  if (m && m->version.major > dlpack::version.major)
    throw argument_error(std::string("nax: ") + function + ": the tensor is DLPack version " +
                         std::to_string(m->version.major) + "." + std::to_string(m->version.minor) +
                         ", newer than the " + std::to_string(dlpack::version.major) + ".x that nax reads");
}

// What to_dlpack hands over: the array (a nax::Array or, io/dlpack_cuda.hpp, a
// nax::cuda::Array), the shape and strides the DLTensor points to, and the managed struct whose
// manager_ctx points back here (the deleter deletes this, after Exporter::before_free).
template <class Managed, class Exporter, class Owned>
struct dlpack_export {
  static constexpr std::size_t rank = Owned::rank;
  Owned array;
  std::array<std::int64_t, rank> shape{}, strides{};
  Managed managed{};

  dlpack_export(Owned&& a, dlpack::DLDevice device) : array(std::move(a)) {
    const auto row_major = row_major_strides(array.extents());
    for (std::size_t k = 0; k != rank; ++k) shape[k] = array.extents()[k], strides[k] = row_major[k];
    dlpack::DLTensor& t = managed.dl_tensor;
    t.data = array.size() ? array.data() : nullptr;  // (data(): inside grad, a tracked array raises)
    t.device = device;
    t.ndim = static_cast<std::int32_t>(rank);
    t.dtype = dlpack_dtype<typename Owned::value_type>();
    t.shape = rank ? shape.data() : nullptr;
    t.strides = rank ? strides.data() : nullptr;
    t.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](Managed* self) {
      auto* e = static_cast<dlpack_export*>(self->manager_ctx);
      Exporter::before_free(e->array);
      delete e;
    };
  }
};

// The arrays to_dlpack exports, and how: make<Managed>(std::move(a)) returns the managed
// tensor; before_free runs in its deleter. io/dlpack_cuda.hpp adds nax::cuda::Array.
template <class A>
struct dlpack_exporter {
  static constexpr bool exportable = false;
};
template <class T, class... As>
struct dlpack_exporter<Array<T, As...>> {
  static constexpr bool exportable = true;
  static void before_free(Array<T, As...>&) noexcept {}
  template <class Managed>
  static Managed* make(Array<T, As...>&& a) {
    return &(new dlpack_export<Managed, dlpack_exporter, Array<T, As...>>(std::move(a), {dlpack::kDLCPU, 0}))->managed;
  }
};

template <class A>
struct require_dlpack_array {
  static_assert(dlpack_exporter<std::remove_cvref_t<A>>::exportable,
                "nax: to_dlpack takes a nax::Array (A is not one): evaluate an expression first, nax::eval(e) (or "
                "a nax::cuda::Array, with <nax/cuda.hpp>)");
  static constexpr bool value = true;
};
template <class A>
struct require_moved_array {
  static_assert(!std::is_lvalue_reference_v<A>,
                "nax: to_dlpack(a) hands a's memory to the consumer, which frees it: pass std::move(a) (or a copy, "
                "nax::Array(a)), so that nax no longer owns it");
  static constexpr bool value = true;
};

// The owner that keeps m alive in views and leaves: calls m's deleter once, when the last copy
// goes (after before_release(), for device memory: io/dlpack_cuda.hpp).
template <class Managed, class Release>
std::shared_ptr<const void> dlpack_owner(Managed* m, Release before_release) {
  return std::shared_ptr<const void>(m, [before_release](const void* p) {
    before_release();
    auto* managed = static_cast<Managed*>(const_cast<void*>(p));
    if (managed->deleter) managed->deleter(managed);
  });
}

}  // namespace detail

// A tensor another library made, viewed with axis names: view() is an ArrayView over its memory
// (no copy). Copies share it; the producer's deleter runs once, when the last copy goes.
template <class T, class... As>
class dlpack_tensor {
 public:
  const ArrayView<T, As...>& view() const { return view_; }
  const std::array<index_t, sizeof...(As)>& extents() const { return view_.extents(); }
  // An expression leaf that keeps the tensor alive (for an expression that outlives this).
  auto leaf() const { return detail::leaf_of(ArrayView<const std::remove_const_t<T>, As...>(view_), owner_); }

  // Takes m over once its tensor passes the checks (from_dlpack calls it; on an error nothing
  // is taken over).
  template <class Managed>
  static dlpack_tensor adopt(Managed* m, bool read_only) {
    if (!m) throw argument_error("nax: from_dlpack: the DLPack tensor is a null pointer");
    auto view = detail::dlpack_view<T, As...>(m->dl_tensor, read_only);
    return dlpack_tensor(view, detail::dlpack_owner(m, [] {}));
  }

 private:
  dlpack_tensor(ArrayView<T, As...> v, std::shared_ptr<const void> owner) : view_(v), owner_(std::move(owner)) {}
  ArrayView<T, As...> view_;
  std::shared_ptr<const void> owner_;
};

// from_dlpack<T, As...>(m): m's tensor as a dlpack_tensor with the axis names As (one per
// dimension, in m's order). T must be m's element type exactly (bool, integers, float, double);
// const T for a read-only versioned tensor. Strides of any order and byte offsets are kept.
template <class T, class... As>
dlpack_tensor<T, As...> from_dlpack(dlpack::DLManagedTensor* m) {
  return dlpack_tensor<T, As...>::adopt(m, false);
}
template <class T, class... As>
dlpack_tensor<T, As...> from_dlpack(dlpack::DLManagedTensorVersioned* m) {
  detail::dlpack_check_version(m, "from_dlpack");
  return dlpack_tensor<T, As...>::adopt(m, m && (m->flags & dlpack::DLPACK_FLAG_BITMASK_READ_ONLY));
}

namespace detail {
template <class Managed, class A>
Managed* export_dlpack(A&& a) {
  static_assert(require_dlpack_array<A>::value && require_moved_array<A>::value);
  using Owned = std::remove_cvref_t<A>;
  if constexpr (dlpack_exporter<Owned>::exportable && !std::is_lvalue_reference_v<A>)
    return dlpack_exporter<Owned>::template make<Managed>(std::move(a));
  else
    return nullptr;  // (after the static_assert's message)
}
}  // namespace detail

// to_dlpack(std::move(a)): a's memory as a legacy DLManagedTensor (what numpy's from_dlpack and
// most consumers take), row-major with explicit strides; the consumer calls its deleter once.
template <class A>
dlpack::DLManagedTensor* to_dlpack(A&& a) {
  return detail::export_dlpack<dlpack::DLManagedTensor>(std::forward<A>(a));
}
// The same as a DLPack 1.x versioned tensor (version 1.1, writable, not a copy).
template <class A>
dlpack::DLManagedTensorVersioned* to_dlpack_versioned(A&& a) {
  auto* m = detail::export_dlpack<dlpack::DLManagedTensorVersioned>(std::forward<A>(a));
  m->version = dlpack::version;
  m->flags = 0;
  return m;
}

}  // namespace nax
