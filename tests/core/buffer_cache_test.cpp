// The per-thread cache of Array buffers (core/buffer_cache.hpp): a freed buffer of 1 KiB to
// 4 MiB is handed out again for the same size; others go back to operator delete; the cache
// holds at most 16 buffers and 16 MiB, evicting the oldest; a recycled buffer is zero-filled
// again by Array's zero-filling constructor; buffers freed on another thread, and threads that
// end with buffers cached, are fine.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <thread>
#include <vector>

namespace {
NAX_AXIS(i);
using nax::detail::buffer_cache;
}  // namespace

TEST_CASE("buffer_cache hands back a kept buffer of the same size, the newest first, and evicts the oldest") {
  buffer_cache cache;
  void* a = nax::detail::allocate_buffer_uncached(4096);
  void* b = nax::detail::allocate_buffer_uncached(4096);
  void* c = nax::detail::allocate_buffer_uncached(8192);
  CHECK(cache.keep(a, 4096));
  CHECK(cache.keep(b, 4096));
  CHECK(cache.keep(c, 8192));
  CHECK(cache.take(2048) == nullptr);
  CHECK(cache.take(4096) == b);
  CHECK(cache.take(4096) == a);
  CHECK(cache.take(4096) == nullptr);
  CHECK(cache.take(8192) == c);
  // Outside [1 KiB, 4 MiB]: not kept.
  void* small = nax::detail::allocate_buffer_uncached(512);
  CHECK_FALSE(cache.keep(small, 512));
  nax::detail::free_buffer_uncached(small);
  CHECK_FALSE(cache.keep(c, buffer_cache::max_bytes + 1));
  // 16 slots: the 17th evicts the first (freed); the last 16 remain.
  std::vector<void*> kept;
  for (int n = 0; n < buffer_cache::slots + 1; ++n) {
    kept.push_back(nax::detail::allocate_buffer_uncached(2048));
    CHECK(cache.keep(kept.back(), 2048));
  }
  for (int n = buffer_cache::slots; n >= 1; --n) CHECK(cache.take(2048) == kept[static_cast<std::size_t>(n)]);
  CHECK(cache.take(2048) == nullptr);
  // 16 MiB at most: four 4 MiB buffers fill it, a fifth evicts the oldest.
  std::vector<void*> big;
  for (int n = 0; n < 5; ++n) {
    big.push_back(nax::detail::allocate_buffer_uncached(buffer_cache::max_bytes));
    CHECK(cache.keep(big.back(), buffer_cache::max_bytes));
  }
  for (int n = 4; n >= 1; --n) CHECK(cache.take(buffer_cache::max_bytes) == big[static_cast<std::size_t>(n)]);
  CHECK(cache.take(buffer_cache::max_bytes) == nullptr);
  for (int n = 1; n < 5; ++n) nax::detail::free_buffer_uncached(big[static_cast<std::size_t>(n)]);
  for (int n = 1; n <= buffer_cache::slots; ++n) nax::detail::free_buffer_uncached(kept[static_cast<std::size_t>(n)]);
  nax::detail::free_buffer_uncached(a);
  nax::detail::free_buffer_uncached(b);
  nax::detail::free_buffer_uncached(c);
}

TEST_CASE("Arrays reuse a freed buffer of their size, and a reused buffer is zero-filled again") {
  const float* first = nullptr;
  {
    nax::Array<float, i> a({4096});
    for (auto& v : a) v = 7.f;
    first = a.data();
  }
  nax::Array<float, i> b({4096});
  if (NAX_BUFFER_CACHE) CHECK(b.data() == first);  // (the cache is off under AddressSanitizer)
  for (float v : b) REQUIRE(v == 0.f);
  // A buffer freed on another thread goes to that thread's cache; the thread ends holding it.
  std::thread([moved = std::move(b)]() mutable { nax::Array<float, i> gone = std::move(moved); }).join();
  std::thread([] {
    nax::Array<double, i> local({1000});
    for (double v : local) REQUIRE(v == 0.0);
  }).join();
}
