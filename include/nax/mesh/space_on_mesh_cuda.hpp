// The device's memory space on a mesh (mesh/space_on_mesh.hpp says what the hooks are). The
// arguments are complete before the mesh runs and each thread waits for its own stream
// before the first barrier, so no thread queues work on another's stream (a mesh thread may
// be blocked in an NCCL kernel there). Shards of the results are written by the thread of the
// results' GPU alone, after every device's outputs are complete.
#pragma once
#include <cstdint>
#include <optional>

#include "../backend/cuda/host_staging.hpp"
#include "../backend/cuda/space.hpp"
#include "space_on_mesh.hpp"

namespace nax::detail {

template <>
struct space_on_mesh<nax::cuda::detail::device_space> {
  using context = nax::cuda::detail::context;
  static constexpr bool parallel_shard_writes = false;
  static int home() { return nax::cuda::current_device(); }
  // On a mesh of host devices, each thread runs on the caller's GPU (a CUDA mesh has made the
  // thread's own GPU current).
  class mesh_scope {
   public:
    mesh_scope(int home, bool mesh_sets_device) {
      if (!mesh_sets_device) guard_.emplace(home);
    }

   private:
    std::optional<nax::cuda::detail::device_guard> guard_;
  };
  static void before_mesh() { nax::cuda::detail::synchronize_used_devices(); }
  static context make_mesh_context() { return context(nax::cuda::current_device(), true); }
  static void finish(context& ctx) {
    nax::cuda::detail::device_guard guard(ctx.device);
    NAX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  }
  template <class A>
  static context context_for(const A& a) {
    return context(a.device(), true);
  }
  // As the host's, through the host where the communicator needs that.
  template <class T, class... As>
  static void sum_over_members(communicator& comm, nax::cuda::Array<T, As...>& a) {
    nax::cuda::detail::all_reduce_device_buffer(comm, a.data(), a.size(), a.device());
  }
  template <class T, class... As>
  static void combine_disjoint(communicator& comm, nax::cuda::Array<T, As...>& a) {
    nax::cuda::detail::all_reduce_device_buffer(comm, reinterpret_cast<std::uint8_t*>(a.data()),
                                                a.size() * index_t{sizeof(T)}, a.device());
  }
};

}  // namespace nax::detail
