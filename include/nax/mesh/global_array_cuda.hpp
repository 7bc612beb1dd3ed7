// Device shards of a GlobalArray (global_array.hpp): device_put of an expression that
// reads nax::cuda arrays makes a nax::cuda::GlobalArray, whose shards are device arrays, each
// on the GPU of its mesh device: the GPU the mesh runs that device on (a mesh over
// nax::cuda::devices() or nax::cuda::mpi_world()), or the caller's current GPU (a mesh of host
// devices sharing it). xmap then reads each shard in place on its GPU; gather() copies the
// shards to one host array.
#pragma once
#include <array>
#include <memory>
#include <mutex>

#include "../backend/cuda/assign.hpp"
#include "../backend/cuda/copy.hpp"
#include "global_array.hpp"

namespace nax::detail {

template <class E, class T, class Axes>
struct shard_array<E, T, Axes, std::enable_if_t<nax::cuda::detail::reads_device<E>::value>> {
  using type = nax::cuda::detail::device_array_for_t<T, Axes>;
};

template <class T, class... As>
struct shard_storage<nax::cuda::Array<T, As...>> {
  using Shard = nax::cuda::Array<T, As...>;

  // place(d) on each local device's thread, with that device's GPU current; one at a time,
  // since each reads the source, which may sit on one GPU (copied by the reading context).
  template <class MeshT, class Place>
  static void for_each_local_device(const MeshT& mesh, const Place& place) {
    const int home = nax::cuda::current_device();
    const bool mesh_sets_device = mesh.devices().kind() == device_kind::cuda;
    std::mutex one_at_a_time;
    mesh.run([&](auto& device) {
      nax::cuda::detail::device_guard guard(mesh_sets_device ? nax::cuda::current_device() : home);
      std::lock_guard lock(one_at_a_time);
      place(device.position());
    });
  }
  // The shard, complete when this returns (the source may be freed after device_put).
  template <class E>
  static std::shared_ptr<Shard> make(const std::array<index_t, sizeof...(As)>& extents, const E& source) {
    auto part = std::make_shared<Shard>(Shard::uninitialized, extents);
    part->view().assign(source);
    nax::cuda::synchronize(part->device());
    return part;
  }
  template <class View>
  static void write_to_host(const View& out, const Shard& shard) {
    const auto copy = nax::cuda::to_host(shard);
    host::context ctx;
    host::assign_in_context(out, leaf_of(copy.view()), ctx);
  }
  // A block of a host array copied to the current GPU (device_put_like, load_tree).
  template <class View>
  static std::shared_ptr<Shard> from_host(const View& block) {
    return std::make_shared<Shard>(nax::cuda::to_device(block));
  }
};

}  // namespace nax::detail

namespace nax::cuda {

// A GlobalArray whose shards are device arrays (device_put of an expression over nax::cuda
// arrays returns one).
template <class T, class... As>
using GlobalArray = nax::basic_global_array<Array<T, As...>>;

}  // namespace nax::cuda
