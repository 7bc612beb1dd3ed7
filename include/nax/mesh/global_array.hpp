// GlobalArray<T, axes...>: a logically whole array stored as shards, one per device of a
// mesh, with a sharding that says which named axis is split over which mesh axis
// (shard<batch, data>). device_put(mesh, x, shard<...>...) makes one from a host array;
// gather() brings the whole array back; xmap reads a GlobalArray whose sharding matches its
// bindings shard by shard, without copying. Mesh layer.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../backend/host/assign.hpp"
#include "../backend/host/join.hpp"
#include "mesh.hpp"

namespace nax {

// Named axis Logical of the array is split evenly over mesh axis MeshAxis.
template <class Logical, class MeshAxis>
struct shard {
  using logical = Logical;
  using mesh_axis = MeshAxis;
};

namespace detail {
template <class L>
struct require_sharded_axis_present {
  static_assert(L::value, "nax: device_put shards an axis the array does not have");
  static constexpr bool value = true;
};
}  // namespace detail

template <class T, class... As>
class GlobalArray {
 public:
  using value_type = T;
  using axes_type = axes<As...>;
  static constexpr std::size_t rank = sizeof...(As);
  using shard_type = Array<T, As...>;

  const std::array<index_t, rank>& extents() const { return extents_; }
  // The mesh axis (index in the mesh's axes) axis j is split over, or -1, and that axis's size.
  const std::array<int, rank>& split_over() const { return split_over_; }
  const std::array<int, rank>& split_into() const { return split_into_; }
  int device_count() const { return static_cast<int>(coordinates_.size()); }
  // Mesh coordinates of device `device` in the mesh the array was placed on.
  const std::vector<int>& coordinates(int device) const { return coordinates_.at(static_cast<std::size_t>(device)); }
  bool holds(int device) const { return device >= 0 && device < device_count() && shards_[device] != nullptr; }
  // The shard of mesh device `device` (a device of this process).
  const shard_type& shard_of(int device) const {
    if (!holds(device))
      throw argument_error("nax: GlobalArray: device " + std::to_string(device) + " holds no shard in this process");
    return *shards_[device];
  }
  // Where device's shard starts along axis j.
  index_t offset(int device, std::size_t j) const {
    if (split_over_[j] < 0) return 0;
    return index_t(coordinates_[device][split_over_[j]]) * (extents_[j] / split_into_[j]);
  }

  // The whole array, on the host (every process gets it when the mesh spans several).
  Array<T, As...> gather() const {
    Array<T, As...> whole(extents_);
    run_all_([&](int device, detail::communicator& everyone) {
      bool writer = true;  // one copy of each shard: devices at coordinate 0 of unsplit mesh axes
      for (std::size_t m = 0; m < coordinates_[device].size(); ++m)
        if (!splits_mesh_axis(int(m)) && coordinates_[device][m] != 0) writer = false;
      auto view = whole.view();
      if (writer) {
        auto part = narrow_all(view, device);
        detail::host::context ctx;
        detail::host::assign_in_context(part, detail::leaf_of(shard_of(device).view()), ctx);
      }
      everyone.barrier();
      if (!all_local_ && device == local_first_) everyone.all_reduce(whole.data(), whole.size());
    });
    return whole;
  }

 private:
  template <class... Ss, class MeshT, class X>
  friend auto device_put(const MeshT& mesh, const X& x);

  bool splits_mesh_axis(int m) const {
    for (int s : split_over_)
      if (s == m) return true;
    return false;
  }
  ArrayView<T, As...> narrow_all(ArrayView<T, As...> view, int device) const {
    std::size_t j = 0;
    ((view = split_over_[j] >= 0 ? detail::host::narrow<As>(view, offset(device, j), extents_[j] / split_into_[j]) : view,
      ++j),
     ...);
    return view;
  }

  std::array<index_t, rank> extents_{};
  std::array<int, rank> split_over_{};
  std::array<int, rank> split_into_{};
  std::vector<std::vector<int>> coordinates_;
  std::vector<std::shared_ptr<shard_type>> shards_;
  bool all_local_ = true;
  int local_first_ = 0;
  std::function<void(const std::function<void(int, detail::communicator&)>&)> run_all_;
};

// Splits x over mesh by the shardings Ss... (shard<named_axis, mesh_axis>); an axis not named
// is replicated. Each sharded extent must divide evenly by its mesh axis's size.
template <class... Ss, class MeshT, class X>
auto device_put(const MeshT& mesh, const X& x) {
  using E = detail::expr_t<const X&>;
  using T = typename E::value_type;
  using MeshAxes = typename MeshT::axis_names;
  static_assert((detail::require_axis_present<typename Ss::logical, detail::visible_t<E>>::value && ... && true));
  static_assert((detail::require_mesh_axis<typename Ss::mesh_axis, MeshAxes>::value && ... && true));
  return [&]<class... As>(axes<As...>) {
    GlobalArray<T, As...> g;
    auto whole = detail::as_expr(x);
    g.extents_ = whole.extents();
    g.split_over_.fill(-1);
    g.split_into_.fill(1);
    auto mark = [&]<class S>(std::type_identity<S>) {
      constexpr std::size_t k = detail::index_of_v<typename S::logical, axes<As...>>;
      g.split_over_[k] = int(detail::index_of_v<typename S::mesh_axis, MeshAxes>);
      g.split_into_[k] = mesh.template size<typename S::mesh_axis>();
      if (g.extents_[k] % g.split_into_[k] != 0)
        throw shape_error("nax: device_put: axis '" + std::string(axis_name<typename S::logical>()) + "' of extent " +
                          std::to_string(g.extents_[k]) + " does not divide evenly over mesh axis '" +
                          std::string(axis_name<typename S::mesh_axis>()) + "' of size " +
                          std::to_string(g.split_into_[k]));
    };
    (mark(std::type_identity<Ss>{}), ...);
    (void)mark;  // no shard specs: every axis replicated
    g.coordinates_.resize(mesh.device_count());
    g.shards_.resize(mesh.device_count());
    for (int d = 0; d < mesh.device_count(); ++d) {
      auto c = mesh.coordinates(d);
      g.coordinates_[d].assign(c.begin(), c.end());
    }
    g.all_local_ = mesh.local_devices().size() == static_cast<std::size_t>(mesh.device_count());
    g.local_first_ = mesh.local_devices().empty() ? 0 : mesh.local_devices().front();
    for (int d : mesh.local_devices()) {
      std::array<index_t, sizeof...(As)> extents = g.extents_;
      for (std::size_t k = 0; k < extents.size(); ++k) extents[k] /= g.split_into_[k];
      auto part = std::make_shared<Array<T, As...>>(extents);
      // This device's block of x, by one fused pass.
      auto source = whole;
      auto narrowed = [&] {
        auto e = detail::positional_relayout<detail::identity_kind, axes<As...>>(source);
        for (std::size_t k = 0; k < extents.size(); ++k) {
          e.offset[k] = g.offset(d, k);
          e.extents_[k] = extents[k];
        }
        return e;
      }();
      part->view().assign(narrowed);
      g.shards_[d] = part;
    }
    g.run_all_ = [mesh](const std::function<void(int, detail::communicator&)>& body) {
      mesh.run([&](auto& device) {
        detail::communicator& everyone = [&]<class... Ns>(axes<Ns...>) -> detail::communicator& {
          return device.template comm<Ns...>();
        }(MeshAxes{});
        body(device.device(), everyone);
      });
    };
    return g;
  }(detail::visible_t<E>{});
}

}  // namespace nax
