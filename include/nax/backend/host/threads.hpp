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
// (One call of body, out of line, that both paths share: inlined into each, body's loops
// would be compiled twice.)
template <class Body>
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
void run_chunk(const Body& body, index_t first, index_t last, int thread) {
  body(first, last, thread);
}
template <class Body>
void for_each_chunk(bool parallel, index_t count, const Body& body) {
#if defined(_OPENMP)
  if (parallel) {
#pragma omp parallel
    {
      const index_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      const index_t share = count / threads, extra = count % threads;
      const index_t first = t * share + std::min(t, extra);
      run_chunk(body, first, first + share + (t < extra ? 1 : 0), static_cast<int>(t));
    }
    return;
  }
#endif
  (void)parallel;
  run_chunk(body, index_t{0}, count, 0);
}
inline int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}
}  // namespace nax::detail::host
