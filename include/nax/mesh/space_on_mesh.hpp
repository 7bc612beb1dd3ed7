// How a memory space takes part in a mesh: xmap's hooks around each device's program, and
// how a communicator combines a result held in the space. The memory space itself (context,
// arrays, assignment: lower/space_of.hpp) knows nothing of meshes; this is the mesh layer's
// view of it. The host's is below; the device's is mesh/space_on_mesh_cuda.hpp.
#pragma once
#include <concepts>
#include <cstdint>

#include "../backend/host/space.hpp"
#include "communicator.hpp"

namespace nax::detail {

template <class Space>
struct space_on_mesh {
  static_assert(sizeof(Space) == 0,
                "nax: this memory space has no space_on_mesh: a backend's space needs its mesh hooks to run "
                "under xmap or over a communicator (for nax::cuda arrays, include <nax/cuda.hpp>)");
};

template <>
struct space_on_mesh<host_space> {
  using context = host_space::context;
  // Each device's program is evaluated by a thread of the mesh: nothing to do on the host,
  // whose threads write their shards of the results in parallel.
  static constexpr bool parallel_shard_writes = true;
  static int home() { return 0; }  // the caller's device
  struct mesh_scope {              // what a mesh thread holds while it runs the program
    mesh_scope(int /*home*/, bool /*the mesh made its device current*/) {}
  };
  static void before_mesh() {}
  static context make_mesh_context() { return {}; }
  static void finish(context&) {}
  // The context that writes a shard into the results `a` (on the device holding them).
  template <class A>
  static context context_for(const A&) {
    return {};
  }
  // Sums an array over the communicator's members, in place on every member.
  template <class T, class... As>
  static void sum_over_members(communicator& comm, Array<T, As...>& a) {
    comm.all_reduce(a.data(), a.size());
  }
  // Combines a result that each member wrote a part of (zeros elsewhere) into the whole, on
  // every member (in place): a sum of bytes, exact for every type (bool and 16-bit integers
  // too, which NCCL cannot add; -0.0 and NaN payloads kept).
  template <class T, class... As>
  static void combine_disjoint(communicator& comm, Array<T, As...>& a) {
    comm.all_reduce(reinterpret_cast<std::uint8_t*>(a.data()), a.size() * index_t{sizeof(T)});
  }
};

// The protocol, space_on_mesh<host_space>'s members above: what xmap, grad's scatter rule and
// GlobalArray call. A backend's specialisation that lacks one fails where
// checked_space_on_mesh_t names it, with this concept's name.
template <class M, class S>
concept mesh_hooks_of =
    std::constructible_from<typename M::mesh_scope, int, bool> &&
    requires(typename S::context& ctx, typename S::template array<float, axes<>>& a, communicator& comm) {
      { M::make_mesh_context() } -> std::same_as<typename S::context>;
      { M::context_for(a) } -> std::same_as<typename S::context>;
      { M::home() } -> std::same_as<int>;
      { M::parallel_shard_writes } -> std::convertible_to<bool>;
      M::before_mesh();
      M::finish(ctx);
      M::sum_over_members(comm, a);
      M::combine_disjoint(comm, a);
    };

template <class S, mesh_hooks_of<S> M = space_on_mesh<S>>
using checked_space_on_mesh_t = M;

}  // namespace nax::detail
