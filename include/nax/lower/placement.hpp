// Placement: where a node's indices sit in the loop nest that evaluates it.
// Index along the node's axis j = offset[j] + sum_k coef[j][k] * loop_index[k].
// Lowering pushes placements down the tree by name and through relayouts.
#pragma once
#include <array>
#include <cstddef>

#include "../core/axis_list.hpp"
#include "../core/config.hpp"

namespace nax::detail {

template <std::size_t R, std::size_t N>
struct placement {
  std::array<std::array<index_t, N>, R> coef{};
  std::array<index_t, R> offset{};
};

// Each axis of NodeAxes is the loop axis of the same name (the root of an evaluation).
template <class NodeAxes, class LoopAxes>
placement<NodeAxes::size, LoopAxes::size> identity_placement() {
  placement<NodeAxes::size, LoopAxes::size> p;
  [&]<class... As>(axes<As...>) {
    std::size_t j = 0;
    ((p.coef[j][index_of_v<As, LoopAxes>] = 1, ++j), ...);
  }(NodeAxes{});
  return p;
}

// The placement of a child whose axes are a subset of the parent's, matched by name.
template <class ChildAxes, class ParentAxes, std::size_t N>
placement<ChildAxes::size, N> restrict_placement(const placement<ParentAxes::size, N>& parent) {
  placement<ChildAxes::size, N> p;
  [&]<class... Cs>(axes<Cs...>) {
    std::size_t j = 0;
    ((p.coef[j] = parent.coef[index_of_v<Cs, ParentAxes>], p.offset[j] = parent.offset[index_of_v<Cs, ParentAxes>], ++j),
     ...);
  }(ChildAxes{});
  return p;
}

// The placement of a relayout's child: child index = offset + coef * (node index).
template <std::size_t CR, std::size_t R, std::size_t N>
placement<CR, N> compose_placement(const std::array<std::array<index_t, R>, CR>& coef,
                                   const std::array<index_t, CR>& offset, const placement<R, N>& node) {
  placement<CR, N> p;
  for (std::size_t c = 0; c != CR; ++c) {
    p.offset[c] = offset[c];
    for (std::size_t j = 0; j != R; ++j) {
      if (coef[c][j] == 0) continue;
      p.offset[c] += coef[c][j] * node.offset[j];
      for (std::size_t k = 0; k != N; ++k) p.coef[c][k] += coef[c][j] * node.coef[j][k];
    }
  }
  return p;
}

}  // namespace nax::detail
