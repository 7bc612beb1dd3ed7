// OpenMP queries that also compile without OpenMP.
#pragma once
#include <algorithm>

#include "../../core/config.hpp"
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace nax::detail::host {
inline int max_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}
// Splits [0, count) into one contiguous chunk per thread, as schedule(static) does, and calls
// body(first, last, thread) for each; with `parallel` false, body(0, count, 0) on this thread
// without an OpenMP region: libgomp sets up (and allocates) a team even for `if (false)`.
// (Not an orphaned `omp for`: called inside a user's parallel region, that would share the
// loop with threads that never reach it.)
// The region is one plain function that calls the body through a pointer: a region in the
// template would be outlined again for every body type (every expression's loop), and at -O0
// each is emitted (docs/compile_time.md). The body's loops are compiled once, in its invoker.
using chunk_call = void (*)(const void* body, index_t first, index_t last, int thread);
inline void for_each_chunk_erased(bool parallel, index_t count, chunk_call call, const void* body) {
#if defined(_OPENMP)
  if (parallel) {
#pragma omp parallel
    {
      const index_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      const index_t share = count / threads, extra = count % threads;
      const index_t first = t * share + std::min(t, extra);
      call(body, first, first + share + (t < extra ? 1 : 0), static_cast<int>(t));
    }
    return;
  }
#endif
  (void)parallel;
  call(body, index_t{0}, count, 0);
}
template <class Body>
void for_each_chunk(bool parallel, index_t count, const Body& body) {
  for_each_chunk_erased(
      parallel, count,
      [](const void* b, index_t first, index_t last, int thread) { (*static_cast<const Body*>(b))(first, last, thread); },
      &body);
}
inline int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}
}  // namespace nax::detail::host
