// Portability macros and the index type. Bottom of the core layer.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define NAX_HOST_DEVICE __host__ __device__
#else
#define NAX_HOST_DEVICE
#endif

// For small hot functions whose inlining the compiler's size heuristics may refuse in one
// call site and grant in another (a scalar tail loop calling the threefry cipher, say).
#if defined(__CUDACC__)
#define NAX_ALWAYS_INLINE __forceinline__
#elif defined(__GNUC__) || defined(__clang__)
#define NAX_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define NAX_ALWAYS_INLINE inline
#endif

namespace nax {
// Extents, strides and indices: signed, so that negative strides (reversed slices) work.
using index_t = std::int64_t;
}  // namespace nax
