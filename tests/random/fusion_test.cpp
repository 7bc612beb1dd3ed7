// Samplers are fused: the numbers are generated inside the pass that consumes them and never
// stored. Checked two ways: the host backend's materialisation count, and the allocations made
// while a reduction over 10^7 samples runs (this file replaces the global operator new of
// test_random with a counting one). Then statistics of the samplers through the public API.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <nax/nax.hpp>
#include <nax/random/random.hpp>

namespace {
std::atomic<std::size_t> largest_allocation{0};
std::atomic<std::size_t> allocated_bytes{0};

void note_allocation(std::size_t n) {
  allocated_bytes.fetch_add(n, std::memory_order_relaxed);
  std::size_t seen = largest_allocation.load(std::memory_order_relaxed);
  while (n > seen && !largest_allocation.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
  }
}
void* counted_allocation(std::size_t n, std::size_t alignment) {
  note_allocation(n);
  const std::size_t a = alignment < sizeof(void*) ? sizeof(void*) : alignment;
  void* p = std::aligned_alloc(a, (n + a - 1) / a * a);
  if (!p) throw std::bad_alloc();
  return p;
}

// Allocations while f runs: the largest single one and the total, in bytes.
struct allocations {
  std::size_t largest, total;
};
template <class F>
allocations allocations_during(F&& f) {
  largest_allocation = 0;
  const std::size_t before = allocated_bytes.load();
  f();
  return {largest_allocation.load(), allocated_bytes.load() - before};
}
}  // namespace

// The replacements pair malloc-style allocation with free; g++ 12's -Wmismatched-new-delete
// cannot see that (it warns where these deletes are inlined).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) { return counted_allocation(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return counted_allocation(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_allocation(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_allocation(n, static_cast<std::size_t>(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace nr = nax::random;
using nax::index_t;
using nax::detail::host::materialisation_count;

namespace {
NAX_AXIS(sample);
NAX_AXIS(batch);
NAX_AXIS(row);
NAX_AXIS(col);
NAX_AXIS(bin);
}  // namespace

TEST_CASE("a sampler assigned to an array is one fused pass: nothing materialised") {
  nax::Array<std::uint64_t, batch> keys = nr::split<batch>(nr::key(3), 8);
  const auto before = materialisation_count().load();
  nax::Array<float, batch, row, col> z =
      nr::normal<row, col>(keys, {16, 16}) * 2.0f + nr::uniform<row, col>(keys, {16, 16});
  nax::Array<float, row, col> w = nr::uniform<row, col>(nr::fold_in(nr::key(1), 7), {16, 16});
  nax::Array<std::int32_t, batch> r = nr::randint<>(keys, {}, 0, 10);
  CHECK(materialisation_count().load() == before);
  CHECK(z.size() == 8 * 16 * 16);
  CHECK(w.size() == 256);
  CHECK(r.size() == 8);
}

TEST_CASE("a reduction over 10^7 samples allocates no buffer of samples") {
  const index_t n = 10000000;
  double total = 0;
  const auto before = materialisation_count().load();
  const allocations a =
      allocations_during([&] { total = nax::sum(nr::uniform<double, sample>(nr::key(9), {n})).item(); });
  CHECK(materialisation_count().load() == before + 1);  // the sum itself, nothing else
  CHECK(a.largest < 64 * 1024);                           // 10^7 doubles would be 80 MB
  CHECK(a.total < 1024 * 1024);
  CHECK(std::fabs(total / n - 0.5) < 4 * std::sqrt(1.0 / 12 / n));
  // The counter sees buffers: storing the samples first allocates them.
  const allocations stored = allocations_during([&] {
    nax::Array<double, sample> x = nr::uniform<double, sample>(nr::key(9), {n});
    total = nax::sum(x).item();
  });
  CHECK(stored.largest >= static_cast<std::size_t>(n) * sizeof(double));

  // Batched: 1000 keys x 10^4 samples, reduced per key then over keys.
  nax::Array<std::uint64_t, batch> keys = nr::split<batch>(nr::key(10), 1000);
  double pi = 0;
  const allocations b = allocations_during([&] {
    auto [kx, ky] = nr::split(keys);
    auto inside = nax::square(nr::uniform<sample>(kx, {10000})) + nax::square(nr::uniform<sample>(ky, {10000})) <= 1.0f;
    pi = nax::mean(4.0 * nax::mean<sample>(inside)).item();
  });
  CHECK(b.largest < 64 * 1024);  // the per-key estimates (8 kB), not the 10^7 samples
  // pi is 4 * (a proportion with p(1 - p) = 0.169): standard error 4 * sqrt(0.169 / 10^7) ~ 5.2e-4
  CHECK(std::fabs(pi - 3.141592653589793) < 4 * 4 * std::sqrt(0.169 / 1e7));
}

namespace {
// Mean and variance of a 10^6-sample expression (fused reductions), checked to 4 standard errors.
template <class E>
void check_moments(const E& x, double mean, double var, double fourth_central) {
  double n = 1;
  for (index_t e : x.extents()) n *= static_cast<double>(e);
  const double s = nax::sum(nax::cast<double>(x)).item();
  const double s2 = nax::sum(nax::square(nax::cast<double>(x))).item();
  const double m = s / n;
  const double v = s2 / n - m * m;
  CHECK(std::fabs(m - mean) < 4 * std::sqrt(var / n));
  CHECK(std::fabs(v - var) < 4 * std::sqrt((fourth_central - var * var) / n));
}
}  // namespace

TEST_CASE("statistics through the public API: means and variances within 4 standard errors") {
  check_moments(nr::uniform<row, col>(nr::key(11), {1000, 1000}), 0.5, 1.0 / 12, 1.0 / 80);
  check_moments(nr::uniform<double, sample>(nr::key(12), {1000000}), 0.5, 1.0 / 12, 1.0 / 80);
  check_moments(nr::uniform<row, col>(nr::key(13), {1000, 1000}, -2.0, 6.0), 2.0, 64.0 / 12, 4096.0 / 80);
  check_moments(nr::normal<row, col>(nr::key(14), {1000, 1000}), 0.0, 1.0, 3.0);
  check_moments(nr::normal<double, sample>(nr::key(15), {1000000}), 0.0, 1.0, 3.0);
  check_moments(nr::bernoulli<sample>(nr::key(16), 0.3, {1000000}), 0.3, 0.21, 0.21 * (1 - 3 * 0.21));
  // randint on [0, 100): mean 49.5, variance (100^2 - 1) / 12, fourth central moment (n^2-1)(3n^2-7)/240
  check_moments(nr::randint<sample>(nr::key(17), {1000000}, 0, 100), 49.5, 9999.0 / 12, 9999.0 * 29993.0 / 240);
  // Keys over a batch axis: 100 streams of 10^4, pooled.
  check_moments(nr::normal<sample>(nr::split<batch>(nr::key(18), 100), {10000}), 0.0, 1.0, 3.0);
}

TEST_CASE("uniform and randint pass a chi-square test over 100 bins") {
  // Histogram by name: compare each sample's bin with axis_index<bin>, sum over the samples.
  auto chi2 = [](const auto& bins_of_samples) {
    nax::Array<std::int32_t, sample> b = bins_of_samples;
    nax::Array<std::int32_t, bin> counts = nax::sum<sample>(b == nax::axis_index<bin>(100));
    const double expected = static_cast<double>(b.size()) / 100;
    return nax::sum(nax::square(nax::cast<double>(counts) - expected) / expected).item();
  };
  // 99 degrees of freedom: mean 99, sd sqrt(198) ~ 14.1; accept within 4 sd.
  const double lo = 99 - 4 * std::sqrt(198.0), hi = 99 + 4 * std::sqrt(198.0);
  const double cu = chi2(nax::cast<std::int32_t>(nr::uniform<sample>(nr::key(21), {1000000}) * 100.0f));
  CHECK(cu > lo);
  CHECK(cu < hi);
  const double cd = chi2(nax::cast<std::int32_t>(nr::uniform<double, sample>(nr::key(22), {1000000}) * 100.0));
  CHECK(cd > lo);
  CHECK(cd < hi);
  const double cr = chi2(nr::randint<sample>(nr::key(23), {1000000}, 0, 100));
  CHECK(cr > lo);
  CHECK(cr < hi);
  // Streams of keys along a batch axis, merged into one sample axis.
  NAX_AXIS(draw);
  auto batched = nr::uniform<draw>(nr::split<batch>(nr::key(24), 100), {10000});
  const double cb = chi2(nax::merge<batch, draw, sample>(nax::cast<std::int32_t>(batched * 100.0f)));
  CHECK(cb > lo);
  CHECK(cb < hi);
}
