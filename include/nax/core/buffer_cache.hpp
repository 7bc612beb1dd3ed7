// Host storage of Arrays: 64-byte aligned buffers from operator new, with a small cache per
// thread of freed buffers of 1 KiB to 4 MiB. A training step makes the same temporaries
// every step (cotangents, packed operands, gradients); handing one back costs a lookup in
// 16 entries, where malloc first consolidates its small free chunks on every request of
// 1 KiB or more (about a sixth of the JAX program's linear step). Core layer, used by array.hpp.
// Off under AddressSanitizer (so that it sees every free) and with NAX_NO_BUFFER_CACHE.
#pragma once
#include <cstddef>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define NAX_BUFFER_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NAX_BUFFER_CACHE 0
#endif
#endif
#if !defined(NAX_BUFFER_CACHE)
#if defined(NAX_NO_BUFFER_CACHE)
#define NAX_BUFFER_CACHE 0
#else
#define NAX_BUFFER_CACHE 1
#endif
#endif

namespace nax::detail {

inline constexpr std::align_val_t buffer_alignment{64};

inline void* allocate_buffer_uncached(std::size_t bytes) { return ::operator new[](bytes, buffer_alignment); }
inline void free_buffer_uncached(void* p) { ::operator delete[](p, buffer_alignment); }

class buffer_cache {
 public:
  static constexpr std::size_t min_bytes = 1024;
  static constexpr std::size_t max_bytes = std::size_t{4} << 20;
  static constexpr std::size_t capacity_bytes = std::size_t{16} << 20;  // held at most, per thread
  static constexpr int slots = 16;

  // This thread's cache; null while it is being destroyed or after (thread exit).
  static buffer_cache* local() {
    thread_local buffer_cache cache;
    return alive() ? &cache : nullptr;
  }

  // A kept buffer of exactly `bytes`, the most recently kept first; null if none.
  void* take(std::size_t bytes) {
    for (int i = count_; i-- > 0;)
      if (entries_[i].bytes == bytes) {
        void* p = entries_[i].p;
        held_ -= bytes;
        remove(i);
        return p;
      }
    return nullptr;
  }
  // Keeps p (of `bytes`) for a later take, evicting the oldest buffers to make room; false
  // (p not kept) when its size is outside the cached range.
  bool keep(void* p, std::size_t bytes) {
    if (bytes < min_bytes || bytes > max_bytes) return false;
    while (count_ == slots || held_ + bytes > capacity_bytes) {
      free_buffer_uncached(entries_[0].p);
      held_ -= entries_[0].bytes;
      remove(0);
    }
    entries_[count_++] = {p, bytes};
    held_ += bytes;
    return true;
  }

  buffer_cache() { alive() = true; }
  ~buffer_cache() {
    alive() = false;
    for (int i = 0; i < count_; ++i) free_buffer_uncached(entries_[i].p);
  }
  buffer_cache(const buffer_cache&) = delete;
  buffer_cache& operator=(const buffer_cache&) = delete;

 private:
  struct entry {
    void* p;
    std::size_t bytes;
  };
  // Trivially destructible, so it can be read after the cache's destructor has run (an Array
  // freed by a later thread_local or static destructor of this thread frees directly).
  static bool& alive() {
    thread_local bool flag = false;
    return flag;
  }
  void remove(int i) {
    for (int j = i + 1; j < count_; ++j) entries_[j - 1] = entries_[j];
    --count_;
  }
  entry entries_[slots];
  int count_ = 0;
  std::size_t held_ = 0;
};

inline void* allocate_buffer(std::size_t bytes) {
#if NAX_BUFFER_CACHE
  if (bytes >= buffer_cache::min_bytes && bytes <= buffer_cache::max_bytes)
    if (buffer_cache* cache = buffer_cache::local())
      if (void* p = cache->take(bytes)) return p;
#endif
  return allocate_buffer_uncached(bytes);
}

inline void free_buffer(void* p, std::size_t bytes) {
#if NAX_BUFFER_CACHE
  if (p && bytes >= buffer_cache::min_bytes && bytes <= buffer_cache::max_bytes)
    if (buffer_cache* cache = buffer_cache::local())
      if (cache->keep(p, bytes)) return;
#else
  (void)bytes;
#endif
  free_buffer_uncached(p);
}

}  // namespace nax::detail
