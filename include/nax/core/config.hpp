// Portability macros and the index type. Bottom of the core layer.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define NAX_HOST_DEVICE __host__ __device__
#else
#define NAX_HOST_DEVICE
#endif

namespace nax {
// Extents, strides and indices: signed, so that negative strides (reversed slices) work.
using index_t = std::int64_t;
}  // namespace nax
