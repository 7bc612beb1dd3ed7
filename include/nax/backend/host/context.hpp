// The host evaluation context: the memo of nodes computed in this evaluation (so a
// reduction or contraction reused by user code is computed once), and the dispatch from a
// node to the backend function that materialises it into a strided leaf.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "../../expr/types_for.hpp"
#include "../../lower/lower.hpp"

namespace nax::detail {

namespace host {

// How many nodes the host backend has materialised since the program started (a reduction
// folded straight into its destination counts too); lets tests check that a reused reduction
// is computed once.
inline std::atomic<std::uint64_t>& materialisation_count() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

struct context {
  std::vector<std::pair<std::uint64_t, std::shared_ptr<const void>>> memo;

  template <class Node>
  leaf_for_t<Node> materialise(const Node& node) {
    using L = leaf_for_t<Node>;
    for (const auto& [id, stored] : memo)
      if (id == node.id) return *static_cast<const L*>(stored.get());
    L leaf = materialise_node(node, *this);  // found by ADL: backend/host/*.hpp
    materialisation_count().fetch_add(1, std::memory_order_relaxed);
    memo.emplace_back(node.id, std::make_shared<const L>(leaf));
    return leaf;
  }
};

}  // namespace host
}  // namespace nax::detail
