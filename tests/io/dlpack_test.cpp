// DLPack (io/dlpack.hpp): to_dlpack then from_dlpack on random extents (0 and 1 included), axis
// orders and element types, without a copy and with the deleter run once; tensors made by hand
// with strides of any order, byte offsets and no strides; versioned tensors and the read-only
// flag; every refusal, with m still the caller's (a kDLCUDA tensor's naming
// nax::cuda::from_dlpack); and numpy's own DLPack code against nax's
// (check_dlpack.py through a ctypes bridge, where python3 has numpy).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../support/error_text.hpp"
#include "../support/reference.hpp"
#include "io_support.hpp"

namespace {
NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(c);
using nax::index_t;
namespace dl = nax::dlpack;

// Counts the deleter runs of tensors whose deleter it wraps (one wrapped tensor at a time).
struct deleter_count {
  static inline int runs = 0;
  static inline void (*original)(dl::DLManagedTensor*) = nullptr;
  static void counted(dl::DLManagedTensor* m) {
    ++runs;
    original(m);
  }
  static dl::DLManagedTensor* wrap(dl::DLManagedTensor* m) {
    original = m->deleter;
    m->deleter = counted;
    return m;
  }
};

template <class T, class... As>
void round_trip(nax_test::random_source& rng) {
  for (int trial = 0; trial < 4; ++trial) {
    auto x = nax_test::random_array<T, As...>(rng, rng.extents<sizeof...(As)>(4));
    const nax::Array<T, As...> expected = x;
    const T* memory = x.size() ? x.data() : nullptr;
    const int before = deleter_count::runs;
    {
      auto t = nax::from_dlpack<T, As...>(deleter_count::wrap(nax::to_dlpack(std::move(x))));
      CHECK(t.extents() == expected.extents());
      if (expected.size()) CHECK(t.view().data() == memory);  // the same memory: no copy
      nax::Array<T, As...> back = t.view();
      CHECK(std::equal(back.begin(), back.end(), expected.begin()));
      auto copy = t;  // copies share the tensor
      CHECK(deleter_count::runs == before);
    }
    CHECK(deleter_count::runs == before + 1);
  }
}

// A DLManagedTensor over memory the test owns, with a deleter that counts.
struct handmade {
  static inline int deleted = 0;
  std::vector<std::int64_t> shape, strides;
  dl::DLManagedTensor m{};
  handmade(void* data, dl::DLDataType dtype, std::vector<std::int64_t> sh, std::vector<std::int64_t> st, std::uint64_t offset = 0)
      : shape(std::move(sh)), strides(std::move(st)) {
    m.dl_tensor = {data, {dl::kDLCPU, 0}, static_cast<std::int32_t>(shape.size()), dtype, shape.data(),
                   strides.empty() ? nullptr : strides.data(), offset};
    m.deleter = [](dl::DLManagedTensor*) { ++deleted; };
  }
  handmade(const handmade&) = delete;  // (m points into shape and strides)
};

std::string error_of(auto&& call) { return nax_test::error_text(call); }
}  // namespace

TEST_CASE("DLPack: to_dlpack then from_dlpack shares the memory, on random extents, axis orders and element types") {
  nax_test::random_source rng(4301);
  round_trip<double, a, b>(rng);
  round_trip<float, b, a, c>(rng);
  round_trip<std::int8_t, a>(rng);
  round_trip<std::uint16_t, c, a>(rng);
  round_trip<std::int64_t, a, b, c>(rng);
  round_trip<bool, b>(rng);
  round_trip<double>(rng);  // rank 0
  // The exported tensor says what it holds.
  nax::Array<float, a, b> x({2, 3});
  auto* m = nax::to_dlpack(std::move(x));
  CHECK(m->dl_tensor.ndim == 2);
  CHECK(m->dl_tensor.shape[0] == 2);
  CHECK(m->dl_tensor.shape[1] == 3);
  CHECK(m->dl_tensor.strides[0] == 3);
  CHECK(m->dl_tensor.strides[1] == 1);
  CHECK(m->dl_tensor.dtype.code == dl::kDLFloat);
  CHECK(m->dl_tensor.dtype.bits == 32);
  CHECK(m->dl_tensor.device.device_type == dl::kDLCPU);
  m->deleter(m);
}

TEST_CASE("DLPack: a tensor made elsewhere, with column-major or strided layouts, a byte offset, or no strides") {
  std::vector<double> memory(64);
  for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = 0.5 * double(i);
  handmade::deleted = 0;
  {
    // Column-major (3, 4) starting at element 2: element (i, j) at 2 + i + 3 j.
    handmade h(memory.data(), {dl::kDLFloat, 64, 1}, {3, 4}, {1, 3}, 2 * sizeof(double));
    auto t = nax::from_dlpack<double, a, b>(&h.m);
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 4; ++j) CHECK(t.view()(i, j) == memory[2 + i + 3 * j]);
    // Usable in expressions, by view or by a leaf that keeps the tensor alive.
    auto total = nax::sum(t.leaf() * 2.0);
    handmade other(memory.data(), {dl::kDLFloat, 64, 1}, {1, 1}, {});
    t = nax::from_dlpack<double, a, b>(&other.m);  // t lets go of the (3, 4) tensor
    CHECK(handmade::deleted == 0);                 // the leaf inside total keeps it
    double want = 0;
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 4; ++j) want += 2 * memory[2 + i + 3 * j];
    CHECK(total.item() == want);
  }
  CHECK(handmade::deleted == 2);  // both, once each, when total and t went
  // Strides with a gap (every other column), and no strides (compact, row-major).
  handmade gap(memory.data(), {dl::kDLFloat, 64, 1}, {2, 3}, {8, 2});
  auto g = nax::from_dlpack<double, a, b>(&gap.m);
  handmade compact(memory.data(), {dl::kDLFloat, 64, 1}, {2, 3}, {});
  auto r = nax::from_dlpack<double, a, b>(&compact.m);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) {
      CHECK(g.view()(i, j) == memory[8 * i + 2 * j]);
      CHECK(r.view()(i, j) == memory[3 * i + j]);
    }
}

TEST_CASE("DLPack: versioned tensors, the read-only flag, and a newer major version") {
  nax_test::random_source rng(4302);
  auto x = nax_test::random_array<double, a, b>(rng, {3, 2});
  const nax::Array<double, a, b> expected = x;
  auto* v = nax::to_dlpack_versioned(std::move(x));
  CHECK(v->version.major == 1);
  CHECK(v->flags == 0);
  {
    auto t = nax::from_dlpack<double, a, b>(v);
    nax::Array<double, a, b> back = t.view();
    CHECK(std::equal(back.begin(), back.end(), expected.begin()));
  }
  auto* ro = nax::to_dlpack_versioned(nax::Array<double, a>({4}));
  ro->flags |= dl::DLPACK_FLAG_BITMASK_READ_ONLY;
  CHECK(error_of([&] { nax::from_dlpack<double, a>(ro); }).find("is read-only") != std::string::npos);
  auto constant = nax::from_dlpack<const double, a>(ro);  // const T: accepted
  CHECK(constant.extents()[0] == 4);
  auto* newer = nax::to_dlpack_versioned(nax::Array<double, a>({4}));
  newer->version.major = 2;
  CHECK(error_of([&] { nax::from_dlpack<double, a>(newer); }) ==
        "nax: from_dlpack: the tensor is DLPack version 2.1, newer than the 1.x that nax reads");
  newer->deleter(newer);  // (still ours after the refusal)
}

TEST_CASE("DLPack: each refusal names what it found and leaves the tensor to the caller") {
  std::vector<float> memory(24);
  handmade::deleted = 0;
  auto refused = [&](handmade&& h, auto ask) {
    std::string text = error_of([&] { ask(&h.m); });
    CHECK(handmade::deleted == 0);  // not taken over
    return text;
  };
  const dl::DLDataType f32{dl::kDLFloat, 32, 1};
  CHECK(refused(handmade(memory.data(), f32, {2, 3}, {}), [](auto* m) { nax::from_dlpack<double, a, b>(m); }) ==
        "nax: from_dlpack<float64, (a, b)>: the tensor holds float32, not float64 (nax does not convert: ask for the "
        "tensor's type, then cast)");
  CHECK(refused(handmade(memory.data(), f32, {2, 3, 4}, {}), [](auto* m) { nax::from_dlpack<float, a, b>(m); }) ==
        "nax: from_dlpack<float32, (a, b)>: the tensor has 3 dimensions, but 2 axis names were given");
  CHECK(refused(handmade(memory.data(), {dl::kDLFloat, 32, 4}, {2}, {}), [](auto* m) { nax::from_dlpack<float, a>(m); })
            .find("holds float32 x 4 lanes, not float32") != std::string::npos);
  CHECK(refused(handmade(memory.data(), f32, {2, 3}, {-3, 1}), [](auto* m) { nax::from_dlpack<float, a, b>(m); }) ==
        "nax: from_dlpack<float32, (a, b)>: dimension 0 ('a') has the negative stride -3; nax views need strides of 0 "
        "or more (copy the reversed tensor first)");
  CHECK(refused(handmade(memory.data(), f32, {2}, {}, 2), [](auto* m) { nax::from_dlpack<float, a>(m); })
            .find("is not aligned to its element's 4 bytes") != std::string::npos);
  CHECK(refused(handmade(memory.data(), f32, {std::int64_t{1} << 40, std::int64_t{1} << 40}, {}),
                [](auto* m) { nax::from_dlpack<float, a, b>(m); })
            .find("size overflow") != std::string::npos);
  CHECK(refused(handmade(memory.data(), f32, {-2}, {}), [](auto* m) { nax::from_dlpack<float, a>(m); })
            .find("negative extent -2") != std::string::npos);
  handmade no_shape(memory.data(), f32, {2, 3}, {});
  no_shape.m.dl_tensor.shape = nullptr;
  CHECK(refused(std::move(no_shape), [](auto* m) { nax::from_dlpack<float, a, b>(m); }) ==
        "nax: from_dlpack<float32, (a, b)>: the tensor has 2 dimensions but no shape (a null pointer)");
  CHECK(refused(handmade(nullptr, f32, {2, 3}, {}), [](auto* m) { nax::from_dlpack<float, a, b>(m); }) ==
        "nax: from_dlpack<float32, (a, b)>: the tensor holds 6 elements but its data is a null pointer");
  {
    handmade empty(nullptr, f32, {0, 3}, {});  // empty: a null pointer is fine
    CHECK(nax::from_dlpack<float, a, b>(&empty.m).extents()[0] == 0);
    CHECK(handmade::deleted == 1);  // taken over, and let go
    handmade::deleted = 0;
  }
  handmade on_gpu(memory.data(), f32, {2}, {});
  on_gpu.m.dl_tensor.device = {dl::kDLCUDA, 1};
  CHECK(refused(std::move(on_gpu), [](auto* m) { nax::from_dlpack<float, a>(m); })
            .find("the tensor lives on CUDA device 1, which the host cannot read") != std::string::npos);
  CHECK(error_of([] { nax::from_dlpack<float, a>(static_cast<dl::DLManagedTensor*>(nullptr)); }) ==
        "nax: from_dlpack: the DLPack tensor is a null pointer");
}

TEST_CASE("DLPack: the host's refusal of a kDLCUDA tensor names nax::cuda::from_dlpack; other devices' do not") {
  std::vector<float> memory(6);
  handmade::deleted = 0;
  handmade on_gpu(memory.data(), {dl::kDLFloat, 32, 1}, {2, 3}, {});
  on_gpu.m.dl_tensor.device = {dl::kDLCUDA, 0};
  CHECK(error_of([&] { nax::from_dlpack<float, a, b>(&on_gpu.m); }) ==
        "nax: from_dlpack<float32, (a, b)>: the tensor lives on CUDA device 0, which the host cannot read: view it as "
        "a device array with nax::cuda::from_dlpack<T, axes...>(m) (<nax/cuda.hpp>, nvcc), or copy it to the host "
        "first");
  auto versioned = nax::to_dlpack_versioned(nax::Array<float, a>({2}));
  versioned->dl_tensor.device = {dl::kDLCUDA, 3};
  CHECK(error_of([&] { nax::from_dlpack<float, a>(versioned); }).find("CUDA device 3, which the host cannot read: "
                                                                       "view it as a device array with "
                                                                       "nax::cuda::from_dlpack") != std::string::npos);
  versioned->dl_tensor.device = {dl::kDLCPU, 0};
  versioned->deleter(versioned);  // (still ours after the refusal)
  on_gpu.m.dl_tensor.device = {dl::kDLROCM, 2};
  const std::string rocm = error_of([&] { nax::from_dlpack<float, a, b>(&on_gpu.m); });
  CHECK(rocm.find("the tensor lives on ROCm device 2, which the host cannot read; nax's host arrays view kDLCPU") !=
        std::string::npos);
  CHECK(rocm.find("cuda::") == std::string::npos);
  CHECK(handmade::deleted == 0);  // nothing was taken over
}

TEST_CASE("DLPack: numpy's np.from_dlpack and ndarray.__dlpack__ against nax (check_dlpack.py)") {
  if (io_test::numpy_python().empty()) {
    MESSAGE("numpy checks skipped: python3 with numpy was not found (Debian: python3-numpy)");
    return;
  }
  const std::string command = io_test::numpy_python() + " '" + io_test::script("check_dlpack.py").string() + "' '" +
                              NAX_DLPACK_BRIDGE + "'";
  CHECK(std::system(command.c_str()) == 0);
}
