// Exceptions nax raises for bad input. Bottom of the core layer: includes nothing of nax.
// Every message names the axes and numbers involved, so a user can act on it.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>

namespace nax {

// Wrong extents, out-of-range indices or slices, non-dividing splits, size overflow.
struct shape_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A value outside what a function accepts (a probability outside [0, 1], min >= max).
struct argument_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A file could not be read or written, or holds something else than was asked for; the text
// names the file, what it found and what was expected.
struct io_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A CUDA, cuBLAS, NCCL or MPI call failed; the text names the call and the library's reason.
struct device_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {
// "(src, dst)" for messages about permutation pairs.
inline std::string pair_text(std::pair<int, int> const& pair) {
  // Built by appending: `"(" + std::string` trips g++ 12's -Wrestrict false positive (GCC bug 105329).
  std::string text = "(";
  text += std::to_string(pair.first);
  text += ", ";
  text += std::to_string(pair.second);
  text += ")";
  return text;
}
}  // namespace detail

}  // namespace nax
