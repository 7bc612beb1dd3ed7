// Loop folding, shared by the backends: outer loop axes merged into the innermost one while
// every operand allows it (can_fold / fold in evaluators.hpp), so that an array with short
// trailing axes runs long inner loops (and, on the device, whole contiguous arrays become one
// row that vector loads can read).
#pragma once
#include <array>
#include <cstddef>

#include "evaluators.hpp"

namespace nax::detail {

// Merges loop axes first..N-2 into the innermost one, from the nearest outwards, while ev
// and the output's strides (out_strides, unless null) allow it (see can_fold in
// lower/evaluators.hpp): an array with short trailing axes then runs long inner loops.
template <evaluator Ev, std::size_t N>
void fold_inner_axes(Ev& ev, std::array<index_t, N>& extents, std::size_t first, std::array<index_t, N>* out_strides) {
  if constexpr (N >= 2) {
    for (std::size_t k = N - 1; k-- > first;) {
      const index_t ek = extents[k], en = extents[N - 1];
      if (!ev.can_fold(k, ek, en) || (out_strides && !affine_can_fold(*out_strides, true, k, ek, en))) return;
      ev.fold(k, ek, en);
      if (out_strides) affine_fold(*out_strides, true, k, ek, en);
      extents[N - 1] = ek * en;
      extents[k] = 1;
    }
  }
}

}  // namespace nax::detail
