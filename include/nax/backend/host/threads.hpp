// OpenMP queries that also compile without OpenMP.
#pragma once
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
inline int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}
}  // namespace nax::detail::host
