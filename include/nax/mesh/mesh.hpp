// Mesh<names...>: a static grid of devices with named axes (jax.sharding.Mesh with the device
// list reshaped row-major), its communicators (one per device for every set of mesh axes,
// created once with the mesh), and run(f), which calls f(mesh_device&) on every device of
// this process. The layer xmap/pmap (transform/) place work and collectives on.
//
//   NAX_AXIS(data); NAX_AXIS(model);
//   nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
//   mesh.run([&](nax::mesh_device<data, model>& device) {
//     float x = device.coordinate<data>();
//     device.comm<data>().all_reduce(&x, 1);      // sum over the 4 devices of this model column
//   });
// (In a generic lambda, `auto& device`, write device.template comm<data>().)
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/axis.hpp"
#include "../core/axis_list.hpp"
#include "../core/errors.hpp"
#include "communicator.hpp"
#include "devices.hpp"
#include "geometry.hpp"
#include "runtime.hpp"

namespace nax {

namespace detail {

template <class MeshAxes>
struct require_unique_mesh_axes {
  static_assert(is_unique_v<MeshAxes>,
                "nax: duplicate mesh axis name: a Mesh names the same axis twice (MeshAxes are "
                "the mesh's axis names)");
  static constexpr bool value = true;
};

template <class MeshAxes>
struct require_mesh_has_axes {
  static_assert(MeshAxes::size >= 1, "nax: a Mesh needs at least one axis name");
  static constexpr bool value = true;
};

template <class Axis, class MeshAxes>
struct require_mesh_axis {
  static_assert(contains_v<Axis, MeshAxes>,
                "nax: not a mesh axis: the mesh has no axis of this name (Axis is the name asked "
                "for, MeshAxes the mesh's axes)");
  static constexpr bool value = true;
};

template <class Asked>
struct require_some_mesh_axis {
  static_assert(Asked::size >= 1, "nax: a communicator needs at least one mesh axis: comm<A...>()");
  static constexpr bool value = true;
};

consteval bool strictly_increasing(std::initializer_list<std::size_t> positions) {
  std::size_t previous = 0;
  bool first = true;
  for (std::size_t position : positions) {
    if (!first && position <= previous) return false;
    previous = position;
    first = false;
  }
  return true;
}

template <class Asked, class MeshAxes>
struct require_mesh_order;
template <class... As, class MeshAxes>
struct require_mesh_order<axes<As...>, MeshAxes> {
  static_assert(strictly_increasing({index_of_v<As, MeshAxes>...}),
                "nax: a communicator over several mesh axes names them once each, in the mesh's "
                "order (Asked, MeshAxes): the order fixes the members' ranks");
  static constexpr bool value = true;
};

// Bit mask of the mesh axes As (an axis not in the mesh adds nothing: the checks above report it).
template <class MeshAxes, class... As>
consteval axis_mask mesh_axis_mask() {
  return ((index_of_v<As, MeshAxes> == npos ? axis_mask{0}
                                            : axis_mask{1} << index_of_v<As, MeshAxes>) |
          ... | axis_mask{0});
}

template <class MeshAxes, class... As>
inline constexpr bool check_comm_axes_v =
    require_some_mesh_axis<axes<As...>>::value && (require_mesh_axis<As, MeshAxes>::value && ...) &&
    require_mesh_order<axes<As...>, MeshAxes>::value;

}  // namespace detail

template <axis... Names>
class Mesh;

// What Mesh::run hands each device: where it sits in the mesh and its communicators.
template <axis... Names>
class mesh_device {
 public:
  static constexpr std::size_t rank = sizeof...(Names);

  mesh_device(Mesh<Names...> const& mesh, int position)
      : mesh_(&mesh), position_(position), coordinates_(mesh.coordinates(position)) {}

  // The device's position in the mesh (row-major over the mesh shape). "device" alone names
  // a GPU ordinal in nax (nax::cuda::Array::device()), so the position has its own name.
  int position() const { return position_; }
  [[deprecated("mesh_device::device() is now position(): the device's position in the mesh")]] int device() const {
    return position_;
  }
  // The device's id in the mesh's device list (an MPI rank, a host device number, a GPU ordinal).
  int device_id() const { return mesh_->devices()[position_]; }
  std::array<int, rank> const& coordinates() const { return coordinates_; }
  template <class A>
  int coordinate() const {
    static_assert(detail::require_mesh_axis<A, axes<Names...>>::value);
    return coordinates_[detail::index_of_v<A, axes<Names...>>];
  }
  // This device's communicator over the mesh axes As (in mesh order): its rank is the row-major
  // index of its coordinates on As, its group the devices sharing its other coordinates.
  template <class... As>
  detail::communicator& comm() const {
    return mesh_->template comm<As...>(position_);
  }
  // The same by axis set as a bit mask (bit i = the i-th mesh axis), for generic code.
  detail::communicator& comm(detail::axis_mask axes) const { return mesh_->comm(axes, position_); }
  Mesh<Names...> const& mesh() const { return *mesh_; }

 private:
  Mesh<Names...> const* mesh_;
  int position_;
  std::array<int, rank> coordinates_;
};

// Copies share one set of communicators and device threads.
// The name mesh_device had before (it is not an evaluation context).
template <axis... Names>
using device_context [[deprecated("nax::device_context is now nax::mesh_device")]] = mesh_device<Names...>;

template <axis... Names>
class Mesh {
  static_assert(detail::require_unique_mesh_axes<axes<Names...>>::value);
  static_assert(detail::require_mesh_has_axes<axes<Names...>>::value);

 public:
  using axis_names = axes<Names...>;
  using device_type = mesh_device<Names...>;  // what run(f) hands f
  static constexpr std::size_t rank = sizeof...(Names);

  // shape: one extent per mesh axis, in the order of Names; their product must equal the number
  // of devices (argument_error otherwise). Builds every communicator (for MPI devices: collective
  // over all ranks, so every rank constructs the same meshes in the same order).
  Mesh(device_list devices, std::initializer_list<int> shape)
      : Mesh(std::move(devices), std::vector<int>(shape)) {}
  Mesh(device_list devices, std::array<int, rank> const& shape)
      : Mesh(std::move(devices), std::vector<int>(shape.begin(), shape.end())) {}
  Mesh(device_list devices, std::vector<int> const& shape) : devices_(std::move(devices)) {
    if (shape.size() != rank)
      throw argument_error(name() + ": the shape has " + std::to_string(shape.size()) +
                           (shape.size() == 1 ? " extent" : " extents") + " for " +
                           std::to_string(rank) + " mesh axes");
    for (std::size_t i = 0; i < rank; ++i) {
      shape_[i] = shape[i];
      if (shape[i] < 1)
        throw argument_error(name() + ": mesh axis " + axis_names_text()[i] + " has extent " +
                             std::to_string(shape[i]) + "; extents must be >= 1");
    }
    long double product = 1;  // not int: a large shape must not overflow into a match
    for (int extent : shape) product *= extent;
    if (product != static_cast<long double>(devices_.count()))
      throw argument_error(name() + ": the shape " + shape_text(shape) + " holds " +
                           (product < 1e18L ? std::to_string(static_cast<std::int64_t>(product))
                                            : std::string("more than 10^18")) +
                           " devices, but the device list has " + devices_.describe());
    geometry_ = detail::mesh_geometry(shape, axis_names_text());
    runtime_ = devices_.platform().make_runtime(devices_.ids(), geometry_);
  }

  template <class A>
  int size() const {
    static_assert(detail::require_mesh_axis<A, axis_names>::value);
    return shape_[detail::index_of_v<A, axis_names>];
  }
  std::array<int, rank> const& shape() const { return shape_; }
  int device_count() const { return geometry_.device_count(); }
  device_list const& devices() const { return devices_; }

  // Coordinates of the device at mesh position `device` (row-major: the last axis varies fastest).
  std::array<int, rank> coordinates(int device) const {
    require_device(device, "coordinates");
    std::array<int, rank> result{};
    for (std::size_t i = 0; i < rank; ++i) result[i] = geometry_.coordinate(device, static_cast<int>(i));
    return result;
  }
  template <class A>
  int coordinate(int device) const {
    static_assert(detail::require_mesh_axis<A, axis_names>::value);
    require_device(device, "coordinate");
    return geometry_.coordinate(device, static_cast<int>(detail::index_of_v<A, axis_names>));
  }
  // The mesh position at the given coordinates.
  int device_at(std::array<int, rank> const& coordinates) const {
    int device = 0;
    for (std::size_t i = 0; i < rank; ++i) {
      if (coordinates[i] < 0 || coordinates[i] >= shape_[i])
        throw argument_error(name() + "::device_at: coordinate " + std::to_string(coordinates[i]) +
                             " on axis " + geometry_.axis_names()[i] + " is outside [0, " +
                             std::to_string(shape_[i]) + ")");
      device = device * shape_[i] + coordinates[i];
    }
    return device;
  }

  // Mesh positions of the devices this process runs (host: all; MPI: this rank's).
  std::vector<int> const& local_devices() const { return runtime_->local_devices(); }
  bool is_local(int device) const { return runtime_->is_local(device); }

  // The communicator of `device` over the mesh axes As (see mesh_device::comm). The same
  // object on every call.
  template <class... As>
  detail::communicator& comm(int device) const {
    static_assert(detail::check_comm_axes_v<axis_names, As...>);
    return comm(detail::mesh_axis_mask<axis_names, As...>(), device);
  }

  // The bit mask of the mesh axes As (bit i = the i-th of Names), checked like comm<As...>().
  template <class... As>
  static constexpr detail::axis_mask axis_mask_of() {
    static_assert(detail::check_comm_axes_v<axis_names, As...>);
    return detail::mesh_axis_mask<axis_names, As...>();
  }
  // comm<As...>(device) with the axis set as a run-time mask (argument_error if empty or
  // naming bits beyond the mesh's axes).
  detail::communicator& comm(detail::axis_mask axes, int device) const {
    require_device(device, "comm");
    if (axes == 0 || axes >= (detail::axis_mask{1} << rank))
      throw argument_error(name() + "::comm: axis mask " + std::to_string(axes) +
                           " names no mesh axis or one beyond the mesh's " + std::to_string(rank));
    if (!runtime_->is_local(device))
      throw argument_error(name() + "::comm: device " + std::to_string(device) +
                           " is not run by this process (its devices: " + local_text() + ")");
    return runtime_->comm(axes, device);
  }

  // Calls f(mesh_device<Names...>&) once for every local device, concurrently (host devices:
  // one persistent thread each; MPI: this rank's device, in the calling thread), and returns when
  // all have returned. If any throws, run() rethrows it (the lowest device's, preferring an
  // original failure to the "another device failed" errors it causes in devices that were
  // waiting for it in a collective); the devices of one process (host threads, or GPUs under
  // NCCL) never stay blocked on a failed one. Not reentrant: calling run from inside f on the
  // same mesh throws device_error.
  template <class F>
  void run(F&& f) const {
    static_assert(std::is_invocable_v<F&, device_type&>,
                  "nax: Mesh::run(f) calls f(mesh_device<Names...>&) on every device");
    runtime_->run([&](int device) {
      device_type here(*this, device);
      f(here);
    });
  }

  // "Mesh<data, model>"
  static std::string name() {
    std::string text = "Mesh<";
    bool first = true;
    ((text += (first ? "" : ", ") + std::string(axis_name<Names>()), first = false), ...);
    return text + ">";
  }

 private:
  static std::vector<std::string> axis_names_text() { return {std::string(axis_name<Names>())...}; }
  // "(data=4, model=2)"
  static std::string shape_text(std::vector<int> const& shape) {
    auto names = axis_names_text();
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
      text += (i ? ", " : "") + names[i] + "=" + std::to_string(shape[i]);
    return text + ")";
  }
  std::string local_text() const {
    std::string text = "{";
    auto const& local = runtime_->local_devices();
    for (std::size_t i = 0; i < local.size(); ++i) text += (i ? ", " : "") + std::to_string(local[i]);
    return text + "}";
  }
  void require_device(int device, std::string_view call) const {
    if (device < 0 || device >= device_count())
      throw argument_error(name() + "::" + std::string(call) + ": device " + std::to_string(device) +
                           " is outside the mesh's " + std::to_string(device_count()) + " devices");
  }

  device_list devices_;
  std::array<int, rank> shape_{};
  detail::mesh_geometry geometry_;
  std::shared_ptr<detail::mesh_runtime> runtime_;
};

}  // namespace nax
