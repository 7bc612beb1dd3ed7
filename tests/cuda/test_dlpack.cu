// DLPack on the device (io/dlpack_cuda.hpp): to_dlpack of a nax::cuda::Array then
// nax::cuda::from_dlpack on random extents (0 and 1 included), axis orders and element types,
// legacy and versioned, with the same device memory and the deleter run once; tensors made by
// hand over device memory, transposed, strided (gaps, a byte offset, broadcast zeros) and
// without strides, read in expressions and written through; managed memory; a leaf that keeps
// the tensor alive; and every refusal, with m still the caller's. The refusals that need no
// device (another device type, the layout's checks, a device id this process does not see)
// run without one too; the rest skip with "CUDA tests skipped: no device".
#include "device_support.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "../support/error_text.hpp"

namespace {
NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(c);
using namespace nax_cuda_test;
using nax::index_t;
namespace dl = nax::dlpack;

// Counts the deleter runs of tensors whose deleter it wraps (one wrapped tensor at a time).
template <class Managed>
struct deleter_count {
  static inline int runs = 0;
  static inline void (*original)(Managed*) = nullptr;
  static void counted(Managed* m) {
    ++runs;
    original(m);
  }
  static Managed* wrap(Managed* m) {
    original = m->deleter;
    m->deleter = counted;
    return m;
  }
};
using legacy_count = deleter_count<dl::DLManagedTensor>;
using versioned_count = deleter_count<dl::DLManagedTensorVersioned>;

// A DLManagedTensor over memory the test owns (device memory, or none), with a deleter that counts.
struct handmade {
  static inline int deleted = 0;
  std::vector<std::int64_t> shape, strides;
  dl::DLManagedTensor m{};
  handmade(void* data, dl::DLDataType dtype, std::vector<std::int64_t> sh, std::vector<std::int64_t> st,
           dl::DLDevice device, std::uint64_t offset = 0)
      : shape(std::move(sh)), strides(std::move(st)) {
    m.dl_tensor = {data, device, static_cast<std::int32_t>(shape.size()), dtype, shape.data(),
                   strides.empty() ? nullptr : strides.data(), offset};
    m.deleter = [](dl::DLManagedTensor*) { ++deleted; };
  }
  handmade(const handmade&) = delete;  // (m points into shape and strides)
};

std::string error_of(auto&& call) { return nax_test::error_text(call); }

template <std::size_t N>
std::array<index_t, N> random_extents() {
  std::array<index_t, N> e{};
  for (auto& x : e) x = random_extent();
  return e;
}

template <class T, class... As>
void round_trip() {
  for (int trial = 0; trial < 4; ++trial) {
    const auto host = random_array<T, As...>(random_extents<sizeof...(As)>());
    nax::cuda::Array<T, As...> x = nax::cuda::to_device(host);
    const int device = x.device();
    const T* memory = x.data();
    const int before = legacy_count::runs;
    {
      auto* m = nax::to_dlpack(std::move(x));
      const dl::DLTensor& t = m->dl_tensor;
      CHECK(t.device.device_type == dl::kDLCUDA);
      CHECK(t.device.device_id == device);
      CHECK(t.ndim == static_cast<std::int32_t>(sizeof...(As)));
      CHECK(t.data == (host.size() ? memory : nullptr));
      CHECK(t.byte_offset == 0);
      const auto row_major = host.strides();  // (row-major)
      for (std::size_t k = 0; k != sizeof...(As); ++k) {
        CHECK(t.shape[k] == host.extents()[k]);
        CHECK(t.strides[k] == row_major[k]);  // written, not left null
      }
      auto d = nax::cuda::from_dlpack<T, As...>(legacy_count::wrap(m));
      CHECK(d.extents() == host.extents());
      CHECK(d.device() == device);
      if (host.size()) CHECK(d.view().data() == memory);  // the same memory: no copy
      check_same(nax::cuda::to_host(d.view()), host, 0.0);
      auto copy = d;  // copies share the tensor
      CHECK(legacy_count::runs == before);
    }
    CHECK(legacy_count::runs == before + 1);
  }
}
}  // namespace

TEST_CASE("cuda: DLPack to_dlpack then cuda::from_dlpack shares the device memory, on random extents and types") {
  if (no_device()) return;
  round_trip<float, a, b>();
  round_trip<double, b, a, c>();
  round_trip<std::int8_t, a>();
  round_trip<std::uint16_t, c, a>();
  round_trip<std::int64_t, a, b, c>();
  round_trip<int, b, c>();
  round_trip<bool, b>();
  round_trip<double>();  // rank 0
  // Explicitly on the device it lives on; the export's deleter called by the test itself.
  const auto host = random_array<float, a>({5});
  auto* m = nax::to_dlpack(nax::cuda::to_device(host));
  {
    auto d = nax::cuda::from_dlpack<float, a>(m, m->dl_tensor.device.device_id);
    nax::cuda::Array<float, a> y = d.view() * 2.f + 1.f;
    nax::Array<float, a> want = host * 2.f + 1.f;
    check_same(nax::cuda::to_host(y), want, 0.0);
  }
  auto* own = nax::to_dlpack(nax::cuda::to_device(host));
  own->deleter(own);  // the consumer's call: frees the array
}

TEST_CASE("cuda: DLPack versioned tensors, the read-only flag and a newer major version") {
  if (no_device()) return;
  const auto host = random_array<double, a, b>({3, 2});
  auto* v = nax::to_dlpack_versioned(nax::cuda::to_device(host));
  CHECK(v->version.major == 1);
  CHECK(v->flags == 0);
  CHECK(v->dl_tensor.device.device_type == dl::kDLCUDA);
  const int before = versioned_count::runs;
  {
    auto d = nax::cuda::from_dlpack<double, a, b>(versioned_count::wrap(v));
    check_same(nax::cuda::to_host(d.view()), host, 0.0);
  }
  CHECK(versioned_count::runs == before + 1);
  auto* ro = nax::to_dlpack_versioned(nax::cuda::Array<double, a>({4}));
  ro->flags |= dl::DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK(error_of([&] { nax::cuda::from_dlpack<double, a>(ro); }) ==
        "nax: cuda::from_dlpack<float64, (a)>: the tensor is read-only (DLPACK_FLAG_BITMASK_READ_ONLY); ask for a "
        "const element type, from_dlpack<const T, ...>");
  auto constant = nax::cuda::from_dlpack<const double, a>(ro);  // const T: accepted
  CHECK(constant.extents()[0] == 4);
  CHECK(nax::cuda::to_host(constant.view())(1) == 0.0);
  auto* newer = nax::to_dlpack_versioned(nax::cuda::Array<double, a>({4}));
  newer->version.major = 2;
  CHECK(error_of([&] { nax::cuda::from_dlpack<double, a>(newer); }) ==
        "nax: cuda::from_dlpack: the tensor is DLPack version 2.1, newer than the 1.x that nax reads");
  newer->deleter(newer);  // (still ours after the refusal)
}

TEST_CASE("cuda: DLPack tensors made elsewhere: transposed, strided, offset, broadcast, stride-less, written through") {
  if (no_device()) return;
  const dl::DLDataType f32{dl::kDLFloat, 32, 1};
  for (int trial = 0; trial < 6; ++trial) {
    const index_t na = random_extent() + 1, nb = random_extent() + 2;  // (at least 1 x 2)
    const auto host = random_array<float, a, b>({na, nb});
    nax::cuda::Array<float, a, b> x = nax::cuda::to_device(host);
    const dl::DLDevice on{dl::kDLCUDA, x.device()};
    handmade::deleted = 0;
    {
      // Transposed: the same memory as (b, a), strides (1, nb).
      handmade tr(x.data(), f32, {nb, na}, {1, nb}, on);
      auto t = nax::cuda::from_dlpack<float, b, a>(&tr.m);
      nax::Array<float, b, a> want = nax::transpose<b, a>(host);
      check_same(nax::cuda::to_host(t.view()), want, 0.0);
      // Read by name in an expression with the array it views.
      nax::cuda::Array<float, a, b> sum = t.view() + x;
      nax::Array<float, a, b> twice = host * 2.f;
      check_same(nax::cuda::to_host(sum), twice, 1e-6);
      // Every other column from column 1: strides (nb, 2) and a byte offset of one element.
      const index_t half = nb / 2;
      handmade gap(x.data(), f32, {na, half}, {nb, 2}, on, sizeof(float));
      auto g = nax::cuda::from_dlpack<float, a, b>(&gap.m);
      nax::Array<float, a, b> columns({na, half});
      for (index_t i = 0; i < na; ++i)
        for (index_t j = 0; j < half; ++j) columns(i, j) = host(i, 1 + 2 * j);
      check_same(nax::cuda::to_host(g.view()), columns, 0.0);
      // Row 0 broadcast to 3 rows (stride 0), and no strides (compact, row-major).
      handmade rows(x.data(), f32, {3, nb}, {0, 1}, on);
      auto r = nax::cuda::from_dlpack<float, c, b>(&rows.m);
      nax::Array<float, c, b> repeated({3, nb});
      for (index_t k = 0; k < 3; ++k)
        for (index_t j = 0; j < nb; ++j) repeated(k, j) = host(0, j);
      check_same(nax::cuda::to_host(r.view()), repeated, 0.0);
      handmade compact(x.data(), f32, {na, nb}, {}, on);
      auto s = nax::cuda::from_dlpack<float, a, b>(&compact.m);
      check_same(nax::cuda::to_host(s.view()), host, 0.0);
      // Written through: the view is the memory (the transposed view, doubled in place).
      t.view().assign(t.view() * 2.f);
      check_same(nax::cuda::to_host(x), twice, 0.0);
      CHECK(handmade::deleted == 0);
    }
    CHECK(handmade::deleted == 4);  // each once, when its view went
  }
}

TEST_CASE("cuda: DLPack leaf() keeps the tensor alive inside an expression; managed memory is read in place") {
  if (no_device()) return;
  const auto host = random_array<double, a, b>({4, 3});
  nax::cuda::Array<double, a, b> x = nax::cuda::to_device(host);
  handmade::deleted = 0;
  {
    handmade h(x.data(), {dl::kDLFloat, 64, 1}, {4, 3}, {}, {dl::kDLCUDA, x.device()});
    auto t = nax::cuda::from_dlpack<double, a, b>(&h.m);
    auto total = nax::sum(t.leaf() * 2.0);
    t = nax::cuda::from_dlpack<double, a, b>(&h.m);  // (the same tensor adopted twice: counted twice)
    CHECK(handmade::deleted == 0);
    { auto drop = std::move(t); }
    CHECK(handmade::deleted == 1);  // the second adoption let go; the leaf inside total keeps the first
    double want = 0;
    for (double v : host) want += 2 * v;
    CHECK(total.item() == doctest::Approx(want).epsilon(1e-12));
  }
  CHECK(handmade::deleted == 2);
  // kDLCUDAManaged: read by the device (cuda::from_dlpack) and by the host (nax::from_dlpack).
  float* managed = nullptr;
  REQUIRE(cudaMallocManaged(&managed, 6 * sizeof(float)) == cudaSuccess);
  for (int i = 0; i < 6; ++i) managed[i] = 0.5f * float(i);
  nax::Array<float, b> column_sums({3});
  for (int j = 0; j < 3; ++j) column_sums(j) = managed[j] + managed[3 + j];
  {
    handmade h(managed, {dl::kDLFloat, 32, 1}, {2, 3}, {}, {dl::kDLCUDAManaged, x.device()});
    auto d = nax::cuda::from_dlpack<float, a, b>(&h.m);
    nax::cuda::Array<float, b> sums = nax::sum<a>(d.view());
    check_same(nax::cuda::to_host(sums), column_sums, 1e-6);  // (to_host waits: the host may touch it again)
  }
  {
    handmade h(managed, {dl::kDLFloat, 32, 1}, {2, 3}, {}, {dl::kDLCUDAManaged, x.device()});
    auto v = nax::from_dlpack<float, a, b>(&h.m);
    CHECK(v.view()(1, 2) == 2.5f);
  }
  REQUIRE(cudaFree(managed) == cudaSuccess);
}

TEST_CASE("cuda: DLPack refusals on a device: the host's of a kDLCUDA tensor, another device than asked for") {
  if (no_device()) return;
  auto* m = nax::to_dlpack(nax::cuda::Array<float, a, b>({2, 3}));
  const std::string on = "CUDA device " + std::to_string(m->dl_tensor.device.device_id);
  CHECK(error_of([&] { nax::from_dlpack<float, a, b>(m); }) ==
        "nax: from_dlpack<float32, (a, b)>: the tensor lives on " + on +
            ", which the host cannot read: view it as a device array with nax::cuda::from_dlpack<T, axes...>(m) "
            "(<nax/cuda.hpp>, nvcc), or copy it to the host first");
  const int other = m->dl_tensor.device.device_id + 1;  // (need not exist: the tensor's own id is checked first)
  CHECK(error_of([&] { nax::cuda::from_dlpack<float, a, b>(m, other); }) ==
        "nax: cuda::from_dlpack<float32, (a, b)>: the tensor (float32, 2 dimensions) lives on " + on +
            ", not on CUDA device " + std::to_string(other) + ", where it must be read");
  const int before = legacy_count::runs;
  {
    auto d = nax::cuda::from_dlpack<float, a, b>(legacy_count::wrap(m));  // still ours: now taken over
    CHECK(d.extents()[1] == 3);
  }
  CHECK(legacy_count::runs == before + 1);
}

TEST_CASE("cuda: DLPack refusals that need no device name what they found and leave the tensor to the caller") {
  // Runs without a GPU too: nothing here reads the (never dereferenced) pointers.
  std::vector<float> memory(24);
  void* p = memory.data();
  handmade::deleted = 0;
  auto refused = [&](handmade&& h, auto ask) {
    std::string text = error_of([&] { ask(&h.m); });
    CHECK(handmade::deleted == 0);  // not taken over
    return text;
  };
  const dl::DLDataType f32{dl::kDLFloat, 32, 1};
  const dl::DLDevice gpu0{dl::kDLCUDA, 0};
  // Another device type: host memory points to nax::from_dlpack, others do not.
  CHECK(refused(handmade(p, f32, {2, 3}, {}, {dl::kDLCPU, 0}), [](auto* m) { nax::cuda::from_dlpack<float, a, b>(m); }) ==
        "nax: cuda::from_dlpack<float32, (a, b)>: the tensor (float32, 2 dimensions) lives on the host (kDLCPU, device "
        "0), not in CUDA device memory (kDLCUDA or kDLCUDAManaged); view it on the host with nax::from_dlpack<T, "
        "axes...>(m), then copy it with nax::cuda::to_device");
  CHECK(refused(handmade(p, f32, {2}, {}, {dl::kDLCUDAHost, 0}), [](auto* m) { nax::cuda::from_dlpack<float, a>(m); })
            .find("the tensor (float32, 1 dimension) lives on pinned host memory (kDLCUDAHost, device 0), not in CUDA "
                  "device memory") != std::string::npos);
  const std::string rocm =
      refused(handmade(p, f32, {2}, {}, {dl::kDLROCM, 1}), [](auto* m) { nax::cuda::from_dlpack<float, a>(m); });
  CHECK(rocm == "nax: cuda::from_dlpack<float32, (a)>: the tensor (float32, 1 dimension) lives on ROCm device 1, not "
                "in CUDA device memory (kDLCUDA or kDLCUDAManaged)");
  // A host tensor nax exported itself: refused, and still the caller's to free.
  auto* host_tensor = nax::to_dlpack(nax::Array<double, a>({3}));
  CHECK(error_of([&] { nax::cuda::from_dlpack<double, a>(host_tensor); }).find("lives on the host (kDLCPU, device 0)") !=
        std::string::npos);
  host_tensor->deleter(host_tensor);
  // The host's checks of the layout, as they are (before the device id: no device needed).
  CHECK(refused(handmade(p, f32, {2, 3}, {}, gpu0), [](auto* m) { nax::cuda::from_dlpack<double, a, b>(m); }) ==
        "nax: cuda::from_dlpack<float64, (a, b)>: the tensor holds float32, not float64 (nax does not convert: ask for "
        "the tensor's type, then cast)");
  CHECK(refused(handmade(p, f32, {2, 3, 4}, {}, gpu0), [](auto* m) { nax::cuda::from_dlpack<float, a, b>(m); }) ==
        "nax: cuda::from_dlpack<float32, (a, b)>: the tensor has 3 dimensions, but 2 axis names were given");
  CHECK(refused(handmade(p, {dl::kDLFloat, 32, 4}, {2}, {}, gpu0), [](auto* m) { nax::cuda::from_dlpack<float, a>(m); })
            .find("holds float32 x 4 lanes, not float32") != std::string::npos);
  CHECK(refused(handmade(p, f32, {2, 3}, {-3, 1}, gpu0), [](auto* m) { nax::cuda::from_dlpack<float, a, b>(m); }) ==
        "nax: cuda::from_dlpack<float32, (a, b)>: dimension 0 ('a') has the negative stride -3; nax views need strides "
        "of 0 or more (copy the reversed tensor first)");
  CHECK(refused(handmade(p, f32, {2}, {}, gpu0, 2), [](auto* m) { nax::cuda::from_dlpack<float, a>(m); })
            .find("is not aligned to its element's 4 bytes") != std::string::npos);
  CHECK(refused(handmade(p, f32, {std::int64_t{1} << 40, std::int64_t{1} << 40}, {}, gpu0),
                [](auto* m) { nax::cuda::from_dlpack<float, a, b>(m); })
            .find("size overflow") != std::string::npos);
  CHECK(refused(handmade(p, f32, {-2}, {}, gpu0), [](auto* m) { nax::cuda::from_dlpack<float, a>(m); })
            .find("negative extent -2") != std::string::npos);
  handmade no_shape(p, f32, {2, 3}, {}, gpu0);
  no_shape.m.dl_tensor.shape = nullptr;
  CHECK(refused(std::move(no_shape), [](auto* m) { nax::cuda::from_dlpack<float, a, b>(m); }) ==
        "nax: cuda::from_dlpack<float32, (a, b)>: the tensor has 2 dimensions but no shape (a null pointer)");
  CHECK(refused(handmade(nullptr, f32, {2, 3}, {}, gpu0), [](auto* m) { nax::cuda::from_dlpack<float, a, b>(m); }) ==
        "nax: cuda::from_dlpack<float32, (a, b)>: the tensor holds 6 elements but its data is a null pointer");
  // A device id this process does not see (without a GPU: any).
  const int count = nax::cuda::device_count();
  const std::string sees = count == 0 ? "no CUDA device"
                                      : std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " (0 to " +
                                            std::to_string(count - 1) + ")";
  CHECK(refused(handmade(p, f32, {2, 3}, {}, {dl::kDLCUDA, count}), [](auto* m) { nax::cuda::from_dlpack<float, a, b>(m); }) ==
        "nax: cuda::from_dlpack<float32, (a, b)>: the tensor (float32, 2 dimensions) lives on CUDA device " +
            std::to_string(count) + ", but this process sees " + sees);
  CHECK(refused(handmade(p, f32, {2}, {}, {dl::kDLCUDA, -1}), [](auto* m) { nax::cuda::from_dlpack<float, a>(m); })
            .find("lives on CUDA device -1, but this process sees") != std::string::npos);
  CHECK(refused(handmade(p, f32, {2}, {}, gpu0), [](auto* m) { nax::cuda::from_dlpack<float, a>(m, -1); }) ==
        "nax: cuda::from_dlpack: device -1 is negative");
  // Versioned: a newer major version and the read-only flag, before the device.
  std::vector<std::int64_t> shape{2};
  dl::DLManagedTensorVersioned v{};
  v.version = {2, 0};
  v.dl_tensor = {p, {dl::kDLCUDA, count}, 1, f32, shape.data(), nullptr, 0};
  v.deleter = [](dl::DLManagedTensorVersioned*) { ++handmade::deleted; };
  CHECK(error_of([&] { nax::cuda::from_dlpack<float, a>(&v); }) ==
        "nax: cuda::from_dlpack: the tensor is DLPack version 2.0, newer than the 1.x that nax reads");
  v.version = {1, 0};
  v.flags = dl::DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK(error_of([&] { nax::cuda::from_dlpack<float, a>(&v); }).find("is read-only") != std::string::npos);
  CHECK(error_of([&] { nax::cuda::from_dlpack<const float, a>(&v); }).find("but this process sees") != std::string::npos);
  CHECK(handmade::deleted == 0);
  CHECK(error_of([] { nax::cuda::from_dlpack<float, a>(static_cast<dl::DLManagedTensor*>(nullptr)); }) ==
        "nax: cuda::from_dlpack: the DLPack tensor is a null pointer");
}
