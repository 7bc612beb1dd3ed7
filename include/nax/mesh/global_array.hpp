// GlobalArray<T, axes...>: a logically whole array stored as shards, one per device of a
// mesh, with a sharding that says which named axis is split over which mesh axis
// (shard<batch, data>). device_put<shard<...>...>(mesh, x) makes one; gather() brings the
// whole array back to the host; xmap reads a GlobalArray whose sharding matches its bindings
// shard by shard, without copying. The shards live in x's memory space: host arrays, or,
// when x reads nax::cuda arrays, nax::cuda::GlobalArray's device arrays, each on the GPU of
// its mesh device (mesh/global_array_cuda.hpp supplies their shard_storage). Mesh layer.
#pragma once
#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../backend/host/assign.hpp"
#include "../core/view_slicing.hpp"
#include "mesh.hpp"
#include "space_on_mesh.hpp"

namespace nax {

// Named axis Logical of the array is split evenly over mesh axis MeshAxis.
template <class Logical, class MeshAxis>
struct shard {
  using logical = Logical;
  using mesh_axis = MeshAxis;
};

namespace detail {
// The shard type of a GlobalArray made from expression E: an array of E's memory space.
template <class E, class T, class Axes, class = void>
struct shard_array {
  using type = array_for_t<T, Axes>;
};

// Whether E is an array (of either memory space) read through a strided view.
template <class E>
inline constexpr bool has_strided_view = requires(const E& e) {
  e.view.strides();
  e.owner;
};
// e with its view narrowed to the block [begin, begin + count) of every axis, if it has one.
template <class... As, class E>
E view_narrowed_to(E e, const std::array<index_t, sizeof...(As)>& begin, const std::array<index_t, sizeof...(As)>& count) {
  if constexpr (has_strided_view<E>) {
    std::size_t k = 0;
    ((e.view = narrow<As>(e.view, begin[k], count[k]), ++k), ...);
  }
  return e;
}

// How shards are made, filled and read back, by shard type: host arrays here.
template <class Shard>
struct shard_storage {
  // Runs place(d) for every device d of this process, each with the device's memory current.
  template <class MeshT, class Place>
  static void for_each_local_device(const MeshT& mesh, const Place& place) {
    for (int d : mesh.local_devices()) place(d);
  }
  template <class E>
  static std::shared_ptr<Shard> make(const std::array<index_t, Shard::axes_type::size>& extents, const E& source) {
    auto part = std::make_shared<Shard>(extents);
    part->view().assign(source);
    return part;
  }
  template <class View>
  static void write_to_host(const View& out, const Shard& shard) {
    host::context ctx;
    host::assign_in_context(out, leaf_of(shard.view()), ctx);
  }
  // The shard holding a block of a host array (device_put_like, load_tree).
  template <class View>
  static std::shared_ptr<Shard> from_host(const View& block) {
    return make(block.extents(), as_expr(block));
  }
};
}  // namespace detail

template <class Shard>
class basic_global_array {
 public:
  using shard_type = Shard;
  using value_type = typename Shard::value_type;
  using axes_type = typename Shard::axes_type;
  static constexpr std::size_t rank = axes_type::size;

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

  // Whether the mesh runs devices in other processes too (MPI): gather() and save_tree are
  // then collective, every process must call them.
  bool spans_processes() const { return !all_local_; }
  // Names of the mesh's axes, in the mesh's order (split_over() indexes them).
  const std::vector<std::string>& mesh_axis_names() const { return mesh_axis_names_; }

  // The whole array, on the host (every process gets it when the mesh spans several).
  detail::array_for_t<value_type, axes_type> gather() const {
    detail::array_for_t<value_type, axes_type> whole(extents_);
    run_all_([&](int device, detail::communicator& everyone) {
      bool writer = true;  // one copy of each shard: devices at coordinate 0 of unsplit mesh axes
      for (std::size_t m = 0; m < coordinates_[device].size(); ++m)
        if (!splits_mesh_axis(int(m)) && coordinates_[device][m] != 0) writer = false;
      auto view = whole.view();
      if (writer) detail::shard_storage<Shard>::write_to_host(narrow_all(view, device), shard_of(device));
      everyone.barrier();
      // Other processes wrote their shards into their own copies (zeros elsewhere).
      if (!all_local_ && device == local_first_)
        detail::space_on_mesh<detail::host_space>::combine_disjoint(everyone, whole);
    });
    return whole;
  }

  // Whether ok holds in every process of the mesh (a collective when the mesh spans
  // processes; ok itself otherwise): save_tree's processes agree on whether the file was written.
  bool in_every_process(bool ok) const {
    if (all_local_) return ok;
    std::atomic<int> all{1};
    run_all_([&](int, detail::communicator& everyone) {
      int mine = ok ? 1 : 0;
      everyone.all_reduce(&mine, 1, detail::dtype::i32, detail::reduce_op::min);
      if (mine == 0) all = 0;
    });
    return all != 0;
  }

 private:
  template <class... Ss, class MeshT, class X>
  friend auto device_put(const MeshT& mesh, const X& x);
  template <class S, class X>
  friend basic_global_array<S> device_put_like(const basic_global_array<S>& like, const X& x);

  bool splits_mesh_axis(int m) const {
    for (int s : split_over_)
      if (s == m) return true;
    return false;
  }
  template <class View>
  View narrow_all(View view, int device) const {
    return [&]<class... As>(axes<As...>) {
      std::size_t j = 0;
      ((view = split_over_[j] >= 0 ? detail::narrow<As>(view, offset(device, j), extents_[j] / split_into_[j])
                                   : view,
        ++j),
       ...);
      return view;
    }(axes_type{});
  }

  std::array<index_t, rank> extents_{};
  std::array<int, rank> split_over_{};
  std::array<int, rank> split_into_{};
  std::vector<std::vector<int>> coordinates_;
  std::vector<std::shared_ptr<const shard_type>> shards_;
  bool all_local_ = true;
  int local_first_ = 0;
  std::function<void(const std::function<void(int, detail::communicator&)>&)> run_all_;
  // Runs place(d) for each device d of this process, with its memory current (shard_storage's
  // for_each_local_device over the mesh the array was placed on).
  std::function<void(const std::function<void(int)>&)> for_each_local_;
  std::vector<std::string> mesh_axis_names_;
};

template <class T, class... As>
using GlobalArray = basic_global_array<Array<T, As...>>;

namespace detail {
template <class X>
inline constexpr bool is_global_array_v = false;
template <class Shard>
inline constexpr bool is_global_array_v<basic_global_array<Shard>> = true;
}  // namespace detail

// Splits x over mesh by the shardings Ss... (shard<named_axis, mesh_axis>); an axis not named
// is replicated. Each sharded extent must divide evenly by its mesh axis's size. The shards
// are arrays of x's memory space (device arrays when x reads nax::cuda arrays).
template <class... Ss, class MeshT, class X>
auto device_put(const MeshT& mesh, const X& x) {
  using E = detail::expr_t<const X&>;
  using T = typename E::value_type;
  using MeshAxes = typename MeshT::axis_names;
  static_assert((detail::require_axis_present<typename Ss::logical, detail::visible_t<E>>::value && ... && true));
  static_assert((detail::require_mesh_axis<typename Ss::mesh_axis, MeshAxes>::value && ... && true));
  return [&]<class... As>(axes<As...>) {
    using Shard = typename detail::shard_array<E, T, axes<As...>>::type;
    basic_global_array<Shard> g;
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
    detail::shard_storage<Shard>::for_each_local_device(mesh, [&](int d) {
      std::array<index_t, sizeof...(As)> extents = g.extents_;
      for (std::size_t k = 0; k < extents.size(); ++k) extents[k] /= g.split_into_[k];
      // This device's block of x, by one fused pass. An array's view is narrowed to the block
      // first, so that a device shard copies only its block from another GPU.
      constexpr bool narrow_view = detail::has_strided_view<decltype(whole)>;
      std::array<index_t, sizeof...(As)> begin{};
      for (std::size_t k = 0; k < extents.size(); ++k) begin[k] = g.offset(d, k);
      auto narrowed =
          detail::positional_relayout<detail::identity_kind, axes<As...>>(detail::view_narrowed_to<As...>(whole, begin, extents));
      for (std::size_t k = 0; k < extents.size(); ++k) {
        narrowed.offset[k] = narrow_view ? 0 : begin[k];
        narrowed.extents_[k] = extents[k];
      }
      g.shards_[d] = detail::shard_storage<Shard>::make(extents, narrowed);
    });
    g.for_each_local_ = [mesh](const std::function<void(int)>& place) {
      detail::shard_storage<Shard>::for_each_local_device(mesh, place);
    };
    g.mesh_axis_names_ = []<class... Ns>(axes<Ns...>) {
      return std::vector<std::string>{std::string(axis_name<Ns>())...};
    }(MeshAxes{});
    g.run_all_ = [mesh](const std::function<void(int, detail::communicator&)>& body) {
      mesh.run([&](auto& device) {
        detail::communicator& everyone = [&]<class... Ns>(axes<Ns...>) -> detail::communicator& {
          return device.template comm<Ns...>();
        }(MeshAxes{});
        body(device.position(), everyone);
      });
    };
    return g;
  }(detail::visible_t<E>{});
}

namespace detail {
template <class T, class U>
struct require_same_element_as_like {
  static_assert(std::is_same_v<T, U>,
                "nax: device_put_like: x's element type differs from the GlobalArray it is placed like (T, U); "
                "cast it first (nax::cast<T>(x))");
  static constexpr bool value = true;
};
}  // namespace detail

// x (a host array, view or expression with like's axes, in any order) split over the mesh
// `like` lies on, as like is split (JAX: jax.device_put(x, like.sharding)). x's extents may
// differ from like's; each split one must divide evenly by its mesh axis's size. load_tree
// places a checkpoint's arrays with it, onto a mesh of any shape. Each process makes the
// shards of its own devices (no communication).
template <class Shard, class X>
basic_global_array<Shard> device_put_like(const basic_global_array<Shard>& like, const X& x) {
  using T = typename Shard::value_type;
  using Axes = typename Shard::axes_type;
  using E = detail::expr_t<const X&>;
  static_assert(detail::require_same_element_as_like<typename E::value_type, T>::value);
  return [&]<class... As>(axes<As...>) {
    using Whole = Array<T, As...>;
    // x in like's axis order, on the host (an Array already in that order is read in place).
    const auto& whole = [&]() -> decltype(auto) {
      if constexpr (std::is_same_v<X, Whole>) return (x);
      else return Whole(transpose<As...>(detail::as_expr(x)));
    }();
    if (!like.for_each_local_)
      throw argument_error("nax: device_put_like: the GlobalArray to place x like was never placed on a mesh "
                           "(default-constructed): make it with device_put");
    basic_global_array<Shard> g = like;
    g.extents_ = whole.extents();
    const std::array<std::string_view, sizeof...(As)> names{axis_name<As>()...};
    for (std::size_t k = 0; k < g.rank; ++k)
      if (g.split_over_[k] >= 0 && g.extents_[k] % g.split_into_[k] != 0)
        throw shape_error("nax: device_put_like: axis '" + std::string(names[k]) + "' of extent " +
                          std::to_string(g.extents_[k]) + " does not divide evenly over mesh axis '" +
                          g.mesh_axis_names_[std::size_t(g.split_over_[k])] + "' of size " +
                          std::to_string(g.split_into_[k]));
    g.shards_.assign(g.shards_.size(), nullptr);
    g.for_each_local_([&](int d) {
      g.shards_[std::size_t(d)] = detail::shard_storage<Shard>::from_host(g.narrow_all(whole.view(), d));
    });
    return g;
  }(Axes{});
}

}  // namespace nax
