// The arithmetic of the collectives that move blocks between devices, shared by the host and
// CUDA backends (mesh/collective_host.hpp, mesh/collective_cuda.hpp): which member's block
// goes where, and the strides that make each device's send and receive buffers one
// contiguous block per peer, so that one communicator call moves exactly what the result
// needs.
#pragma once
#include <array>
#include <string>
#include <cstddef>
#include <utility>
#include <vector>

#include "../core/axis_list.hpp"
#include "../core/config.hpp"
#include "../core/errors.hpp"
#include "communicator.hpp"

namespace nax::detail {

// Strides of an array laid out in the axis order Layout, listed in the order NA.
template <class NA, class Layout>
std::array<index_t, NA::size> strides_by_name(const std::array<index_t, Layout::size>& layout_strides) {
  return [&]<class... As>(axes<As...>) {
    return std::array<index_t, NA::size>{layout_strides[index_of_v<As, Layout>]...};
  }(NA{});
}

// all_to_all over a mesh axis of M devices, each holding L members of N (axes CA: N mapped,
// Split visible with M * L blocks, R elements in the other axes). Device d sends device e the
// blocks e*L .. e*L + L - 1 of each of its members, as one contiguous block of L * L * R
// elements laid out [its member][block][rest]; so what device e receives from d is laid out
// [d's member][e's member][rest], and the received buffer, read with Concat's stride L * R
// (Concat = d * L + d's member), is the result with no further copy.
template <class CA, class N, class Split>
struct all_to_all_layout {
  index_t members_here = 0;  // L
  index_t rest = 1;          // R
  std::array<index_t, CA::size> send_strides{};     // CA order; Split spans one peer's blocks
  std::array<index_t, CA::size> receive_strides{};  // CA order, Split's slot is Concat's stride

  explicit all_to_all_layout(const std::array<index_t, CA::size>& extents) {
    constexpr std::size_t n = index_of_v<N, CA>, split = index_of_v<Split, CA>;
    members_here = extents[n];
    for (std::size_t k = CA::size; k-- > 0;) {
      if (k == n || k == split) continue;
      send_strides[k] = receive_strides[k] = rest;
      rest *= extents[k];
    }
    send_strides[split] = rest;
    send_strides[n] = members_here * rest;
    receive_strides[split] = members_here * rest;
    receive_strides[n] = rest;
  }
  index_t block() const { return members_here * members_here * rest; }  // elements per peer
};

// ppermute over a mesh axis whose devices hold `here` members each: one communicator permute
// per pair of local positions (source's, destination's) that some member pair uses. In each
// round every device sends at most one member and receives at most one, so the device pairs
// form a valid permutation; a member's value crosses the mesh once. With one member per
// device (pmap, xmap over a mesh axis of the axis's size) that is a single round.
struct permute_round {
  index_t send_position = 0;     // the local member this device sends
  index_t receive_position = 0;  // the local member it fills, when it is a destination
  permutation pairs;             // (source device, destination device)
};

// source[d]: the member that member d receives, -1 for none (every member of the axis).
inline std::vector<permute_round> permute_rounds(const std::vector<index_t>& source, index_t here) {
  std::vector<permute_round> rounds;
  if (here == 0) return rounds;
  std::vector<std::vector<std::size_t>> round_of(static_cast<std::size_t>(here),
                                                 std::vector<std::size_t>(static_cast<std::size_t>(here), 0));
  for (std::size_t d = 0; d < source.size(); ++d) {
    const index_t s = source[d];
    if (s < 0) continue;
    const index_t dst = static_cast<index_t>(d);
    std::size_t& r = round_of[static_cast<std::size_t>(s % here)][static_cast<std::size_t>(dst % here)];
    if (r == 0) {
      rounds.push_back({s % here, dst % here, {}});
      r = rounds.size();
    }
    rounds[r - 1].pairs.emplace_back(static_cast<int>(s / here), static_cast<int>(dst / here));
  }
  return rounds;
}

// The members a node holds must tile the communicator's group: a mismatch would move the wrong
// blocks silently, so it is an error naming the numbers (it means a binding and a
// communicator disagree, never a user's extent, which the builders check).
inline void require_members_tile_group(const char* what, index_t members, index_t here, int group) {
  if (members != here * group)
    throw device_error(std::string("nax: ") + what + ": " + std::to_string(members) + " members, but this device holds " +
                       std::to_string(here) + " of them and the communicator's group has " + std::to_string(group) +
                       " devices");
}

inline bool receives_in(const permute_round& round, int device) {
  for (auto const& pair : round.pairs)
    if (pair.second == device) return true;
  return false;
}

}  // namespace nax::detail
