// CUDA backend, elementwise: fused kernels against the host backend on random extents
// (0 and 1 included), with broadcasting by name, transposed destinations, slices, integer
// semantics, aliasing, the vector-load path at every alignment, the run-time errors and the
// copy of an array on another GPU.
#include "device_support.hpp"

#include <cstdint>
#include <limits>
#include <optional>

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
using namespace nax_cuda_test;
}  // namespace

TEST_CASE("cuda: to_device / to_host round trip, empty and rank-0 arrays") {
  if (no_device()) return;
  for (int trial = 0; trial < 10; ++trial) {
    auto x = random_array<float, i, j>({random_extent(), random_extent()});
    auto d = nax::cuda::to_device(x);
    CHECK(d.extents() == x.extents());
    check_same(nax::cuda::to_host(d), x, 0.0);
  }
  nax::Array<double> scalar({}, {2.5});
  CHECK(nax::cuda::to_host(nax::cuda::to_device(scalar)).item() == 2.5);
  nax::cuda::Array<int, i, j> zeros({3, 4});
  auto back = nax::cuda::to_host(zeros);
  for (int v : back) CHECK(v == 0);
}

TEST_CASE("cuda: a copy of an array on another GPU, made on the current one after the source's work") {
  if (no_device()) return;
  if (nax::cuda::device_count() < 2) {
    MESSAGE("one CUDA device: the copy across devices needs two");
    return;
  }
  nax::cuda::detail::device_guard on0(0);
  auto x = random_array<float, i, j>({1024, 1031});
  nax::Array<float, i, j> expected = x * 2.f + 1.f;  // exact in float, with or without an FMA
  auto source = nax::cuda::to_device(x, 0);
  for (int round = 0; round < 3; ++round) {
    std::optional<nax::cuda::Array<float, i, j>> copy;
    {
      nax::cuda::Array<float, i, j> written = source * 2.f + 1.f;  // queued on device 0's stream
      nax::cuda::detail::device_guard on1(1);
      copy.emplace(written);  // on device 1: after that kernel, before the free that follows
    }
    nax::cuda::Array<float, i, j> reuse(x.extents());  // zero-fills what the pool hands out again
    REQUIRE(copy->device() == 1);
    check_same(nax::cuda::to_host(*copy), expected, 0.0);
    CHECK(nax::cuda::to_host(reuse)(3, 5) == 0.f);
  }
}

TEST_CASE("cuda: fused elementwise expressions match the host, any axis order") {
  if (no_device()) return;
  for (int trial = 0; trial < 25; ++trial) {
    const nax::index_t ni = random_extent(), nj = random_extent(), nk = random_extent();
    auto x = random_array<float, i, j>({ni, nj});
    auto y = random_array<float, j, k>({nj, nk});
    auto z = random_array<float, k>({nk});
    auto dx = nax::cuda::to_device(x);
    auto dy = nax::cuda::to_device(y);
    auto dz = nax::cuda::to_device(z);
    // Broadcasting by name: result axes (i, j, k); stored in another order (a transpose).
    nax::Array<float, k, i, j> host = x * 2.f + nax::exp(y) - nax::where(x > 0.f, x, -x) * z + nax::tanh(z);
    nax::cuda::Array<float, k, i, j> dev = dx * 2.f + nax::exp(dy) - nax::where(dx > 0.f, dx, -dx) * dz + nax::tanh(dz);
    check_same(nax::cuda::to_host(dev), host);
    // Transposes, renames and strided slices are leaves with other strides.
    const nax::index_t stop = nj;
    nax::Array<float, j, i> hs = nax::transpose<j, i>(nax::slice<j>(x, 0, stop, 2)) + nax::sqrt(nax::abs(
                                                                                          nax::slice<j>(x, 0, stop, 2)));
    nax::cuda::Array<float, j, i> ds = nax::transpose<j, i>(nax::slice<j>(dx, 0, stop, 2)) +
                                       nax::sqrt(nax::abs(nax::slice<j>(dx, 0, stop, 2)));
    check_same(nax::cuda::to_host(ds), hs);
  }
}

TEST_CASE("cuda: vector loads and element-by-element reads agree, aligned or not") {
  if (no_device()) return;
  // Operands and destinations starting 0, 1, 2 or 4 elements into their buffers (16-byte
  // aligned or not), rows with and without a tail after the last 16-byte group, and outputs
  // of 1, 4 and 8 bytes (16, 4 and 2 lanes) reading leaves of other sizes.
  for (nax::index_t offset : {0, 1, 2, 4})
    for (nax::index_t n : {1, 3, 4, 7, 8, 33, 1029}) {
      INFO("offset " << offset << ", row " << n);
      const nax::index_t w = n + 8;
      auto x = random_array<float, i, j>({3, w});
      auto y = random_array<double, j>({w});
      auto m = random_array<bool, i, j>({3, w});
      auto dx = nax::cuda::to_device(x);
      auto dy = nax::cuda::to_device(y);
      auto dm = nax::cuda::to_device(m);
      auto part = [&](const auto& a) { return nax::slice<j>(a, offset, offset + n); };
      nax::Array<float, i, j> hf = part(x) * 2.f + nax::cast<float>(part(y)) - nax::cast<float>(part(m));
      nax::Array<double, i, j> hd = part(x) * part(y);
      nax::Array<bool, i, j> hb = part(m) && part(x) > 0.f;
      // Into whole arrays (aligned destinations) ...
      nax::cuda::Array<float, i, j> df = part(dx) * 2.f + nax::cast<float>(part(dy)) - nax::cast<float>(part(dm));
      nax::cuda::Array<double, i, j> dd = part(dx) * part(dy);
      nax::cuda::Array<bool, i, j> db = part(dm) && part(dx) > 0.f;
      check_same(nax::cuda::to_host(df), hf);
      check_same(nax::cuda::to_host(dd), hd, 1e-12);
      check_same(nax::cuda::to_host(db), hb);
      // ... and through views at the same offset into wider device arrays.
      nax::cuda::Array<float, i, j> wide({3, w});
      nax::cuda::ArrayView<float, i, j> window(wide.data() + offset, {3, n}, {w, 1}, wide.device());
      window.assign(part(dx) * 2.f + nax::cast<float>(part(dy)) - nax::cast<float>(part(dm)));
      auto back = nax::cuda::to_host(wide);
      for (nax::index_t r = 0; r < 3; ++r)
        for (nax::index_t c = 0; c < w; ++c) {
          const bool inside = c >= offset && c < offset + n;
          CHECK(back(r, c) == (inside ? hf(r, c - offset) : 0.f));
        }
    }
}

TEST_CASE("cuda: math functions and comparisons in double and float") {
  if (no_device()) return;
  auto x = random_array<double, i>({1000});
  auto dx = nax::cuda::to_device(x);
  nax::Array<double, i> host = nax::sin(x) + nax::cos(x) + nax::log1p(nax::abs(x)) + nax::expm1(x) + nax::erf(x) +
                               nax::sigmoid(x) + nax::log_sigmoid(x) + nax::relu(x) + nax::pow(nax::abs(x), 1.5) +
                               nax::maximum(x, 0.5) + nax::minimum(x, -0.5) + nax::rsqrt(nax::abs(x) + 1.0) +
                               nax::square(x);
  nax::cuda::Array<double, i> dev = nax::sin(dx) + nax::cos(dx) + nax::log1p(nax::abs(dx)) + nax::expm1(dx) +
                                    nax::erf(dx) + nax::sigmoid(dx) + nax::log_sigmoid(dx) + nax::relu(dx) +
                                    nax::pow(nax::abs(dx), 1.5) + nax::maximum(dx, 0.5) + nax::minimum(dx, -0.5) +
                                    nax::rsqrt(nax::abs(dx) + 1.0) + nax::square(dx);
  check_same(nax::cuda::to_host(dev), host, 1e-12);
  nax::Array<bool, i> hb = (x > 0.0 && x < 1.0) || !(x != x);
  nax::cuda::Array<bool, i> db = (dx > 0.0 && dx < 1.0) || !(dx != dx);
  check_same(nax::cuda::to_host(db), hb);
}

TEST_CASE("cuda: integer semantics as on the host (division by zero, wrapping, pow)") {
  if (no_device()) return;
  auto a = random_array<int, i, j>({17, 33});
  auto b = random_array<int, i, j>({17, 33});
  auto da = nax::cuda::to_device(a);
  auto db = nax::cuda::to_device(b);
  nax::Array<int, i, j> host = a / b + nax::pow(a, 3) * b - nax::cast<int>(a > b);
  nax::cuda::Array<int, i, j> dev = da / db + nax::pow(da, 3) * db - nax::cast<int>(da > db);
  check_same(nax::cuda::to_host(dev), host);
  nax::Array<double, i, j> hw = a * 2.5;  // weak typing: int array with a C++ double
  nax::cuda::Array<double, i, j> dw = da * 2.5;
  check_same(nax::cuda::to_host(dw), hw, 0.0);
  nax::Array<std::int32_t, i> hidx = nax::axis_index<i>(17) * 3;
  nax::cuda::Array<std::int32_t, i> didx = nax::axis_index<i>(17) * 3;  // no array: computed on the device
  check_same(nax::cuda::to_host(didx), hidx);
}

TEST_CASE("cuda: assignment in place, through views, and aliasing") {
  if (no_device()) return;
  auto x = random_array<float, i, j>({33, 33});
  auto d = nax::cuda::to_device(x);
  d = d * 2.f + 1.f;  // in place
  nax::Array<float, i, j> host = x * 2.f + 1.f;
  check_same(nax::cuda::to_host(d), host);
  // Reads another element of the destination: goes through a temporary.
  d = nax::rename<k, j>(nax::rename<j, i>(nax::rename<i, k>(d))) - 1.f;  // d(i, j) = d(j, i) - 1
  nax::Array<float, i, j> ht = nax::rename<k, j>(nax::rename<j, i>(nax::rename<i, k>(host))) - 1.f;
  check_same(nax::cuda::to_host(d), ht);
  nax::cuda::Array<float, i, j> copy = d;  // value semantics
  d = d * 0.f;
  check_same(nax::cuda::to_host(copy), ht);
  d.view().assign(copy + 1.f);
  nax::Array<float, i, j> h1 = ht + 1.f;
  check_same(nax::cuda::to_host(d), h1);
  auto e = nax::cuda::eval(copy * copy);
  static_assert(std::is_same_v<decltype(e), nax::cuda::Array<float, i, j>>);
  nax::Array<float, i, j> h2 = ht * ht;
  check_same(nax::cuda::to_host(e), h2);
  check_same(nax::cuda::to_host(copy * copy), h2);  // to_host of an expression evaluates it on the device
}

// nax keeps freed pool memory (release threshold: everything) unless told otherwise.
TEST_CASE("cuda: the memory pool keeps freed memory up to its release threshold") {
  if (no_device()) return;
  const int device = nax::cuda::current_device();
  CHECK(nax::cuda::pool_release_threshold(device) == std::numeric_limits<std::uint64_t>::max());
  cudaMemPool_t pool = nullptr;
  NAX_CUDA_CHECK(cudaDeviceGetMemPool(&pool, device));
  const auto reserved = [&] {
    std::uint64_t bytes = 0;
    NAX_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &bytes));
    return bytes;
  };
  const std::uint64_t size = std::uint64_t{256} << 20;
  const auto allocate_and_free = [&] {
    nax::cuda::Array<float, i> big({static_cast<nax::index_t>(size / sizeof(float))});
    nax::cuda::synchronize();
    CHECK(reserved() >= size);
  };
  allocate_and_free();
  nax::cuda::synchronize();
  CHECK(reserved() >= size);  // freed, and kept by the pool for the next allocation
  nax::cuda::set_pool_release_threshold(0);
  CHECK(nax::cuda::pool_release_threshold() == 0);
  allocate_and_free();
  nax::cuda::synchronize();
  CHECK(reserved() < size);  // returned at the synchronisation
  nax::cuda::set_pool_release_threshold(std::numeric_limits<std::uint64_t>::max(), device);
  CHECK_THROWS_WITH_AS(nax::cuda::set_pool_release_threshold(0, nax::cuda::device_count()),
                       doctest::Contains("does not exist"), nax::device_error);
}

// Runs without a device too: the message of every failed allocation names the size.
TEST_CASE("cuda: a failed allocation names its size, whatever the error code") {
  const std::size_t bytes = std::size_t{1} << 52;
  for (const cudaError_t status : {cudaErrorMemoryAllocation, cudaErrorInvalidValue, cudaErrorNotSupported}) {
    const std::string text = nax::cuda::detail::allocation_error_text(status, bytes, 3);
    CAPTURE(text);
    CHECK(text.find("cudaMallocAsync of 4503599627370496 bytes (4294967296 MiB) failed") != std::string::npos);
    CHECK(text.find("CUDA device 3") != std::string::npos);
    CHECK(text.find(cudaGetErrorName(status)) != std::string::npos);
  }
  CHECK(nax::cuda::detail::allocation_error_text(cudaErrorMemoryAllocation, 8, 0).find("out of device memory") !=
        std::string::npos);
}

TEST_CASE("cuda: errors are nax exceptions naming the problem") {
  if (no_device()) return;
  nax::cuda::Array<float, i> a({3});
  nax::cuda::Array<float, i> b({4});
  CHECK_THROWS_AS((void)nax::cuda::eval(a + b), nax::shape_error);
  CHECK_THROWS_AS(a.view().assign(b * 2.f), nax::shape_error);
  // An allocation far beyond any device: device_error saying how much was asked for (2^52
  // bytes), whichever error code the allocator gives.
  try {
    nax::cuda::Array<float, i> huge({nax::index_t{1} << 50});
    FAIL("allocating 4 PiB did not fail");
  } catch (const nax::device_error& e) {
    CHECK(std::string(e.what()).find("4503599627370496 bytes") != std::string::npos);
    CHECK(std::string(e.what()).find("cudaMallocAsync") != std::string::npos);
  }
  nax::cuda::synchronize();  // and the device is still usable
  nax::cuda::Array<float, i> c = a + 1.f;
  CHECK(nax::cuda::to_host(c)(2) == 1.f);
}

TEST_CASE("cuda: random samplers run inside the kernel and match the host") {
  if (no_device()) return;
  namespace nr = nax::random;
  auto [kx, ky] = nr::split(nr::key(42));
  nax::Array<float, i> hu = nr::uniform<i>(kx, {1000});
  nax::cuda::Array<float, i> du = nr::uniform<i>(kx, {1000});
  check_same(nax::cuda::to_host(du), hu, 0.0);  // threefry bits: bit-identical
  nax::Array<float, i> hn = nr::normal<i>(ky, {1000}) * 2.f;
  nax::cuda::Array<float, i> dn = nr::normal<i>(ky, {1000}) * 2.f;
  check_same(nax::cuda::to_host(dn), hn, 1e-5);  // erfinv in float: within rounding
}
