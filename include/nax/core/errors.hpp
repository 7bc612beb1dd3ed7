// Exceptions nax raises for bad input. Bottom of the core layer: includes nothing of nax.
// Every message names the axes and numbers involved, so a user can act on it.
#pragma once
#include <stdexcept>
#include <string>

namespace nax {

// Wrong extents, out-of-range indices or slices, non-dividing splits, size overflow.
struct shape_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A value outside what a function accepts (a probability outside [0, 1], min >= max).
struct argument_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A CUDA, cuBLAS, NCCL or MPI call failed; the text names the call and the library's reason.
struct device_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nax
