// Mesh geometry without names: the shape, the row-major order of devices over it, and the
// groups of devices that differ only in the coordinates of a set of axes (the members of one
// communicator). Shared by every device kind's runtime (host_runtime.hpp, mpi_communicator.hpp).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "../core/errors.hpp"

namespace nax::detail {

// A set of mesh axes as a bit mask: bit i = the i-th axis of the mesh.
using axis_mask = unsigned;

class mesh_geometry {
 public:
  mesh_geometry() = default;
  mesh_geometry(std::vector<int> shape, std::vector<std::string> axis_names)
      : shape_(std::move(shape)), names_(std::move(axis_names)) {
    count_ = 1;
    for (int extent : shape_) count_ *= extent;
  }

  int rank() const { return static_cast<int>(shape_.size()); }
  int device_count() const { return count_; }
  std::vector<int> const& shape() const { return shape_; }
  std::vector<std::string> const& axis_names() const { return names_; }
  axis_mask all_axes() const { return (axis_mask{1} << rank()) - 1; }

  // Coordinate of `device` along axis `axis` (row-major: the last axis varies fastest).
  int coordinate(int device, int axis) const {
    int stride = 1;
    for (int i = rank() - 1; i > axis; --i) stride *= shape_[static_cast<std::size_t>(i)];
    return device / stride % shape_[static_cast<std::size_t>(axis)];
  }

  int group_size(axis_mask axes) const {
    int size = 1;
    for (int i = 0; i < rank(); ++i)
      if (axes >> i & 1u) size *= shape_[static_cast<std::size_t>(i)];
    return size;
  }
  int group_count(axis_mask axes) const { return count_ / group_size(axes); }

  // Row-major index of `device`'s coordinates on the axes in `axes` (in mesh order): its rank in
  // its group over `axes`.
  int rank_in_group(int device, axis_mask axes) const { return mixed_index(device, axes); }
  // Row-major index of `device`'s coordinates on the other axes: which group over `axes` it is in.
  int group_index(int device, axis_mask axes) const {
    return mixed_index(device, all_axes() & ~axes);
  }

  // "{data, model}"
  std::string axes_text(axis_mask axes) const {
    std::string text = "{";
    bool first = true;
    for (int i = 0; i < rank(); ++i) {
      if (!(axes >> i & 1u)) continue;
      text += (first ? "" : ", ") + names_[static_cast<std::size_t>(i)];
      first = false;
    }
    return text + "}";
  }
  // "over {data} where model=1" for the group over `axes` holding `device`.
  std::string group_text(int device, axis_mask axes) const {
    std::string text = "over " + axes_text(axes);
    bool first = true;
    for (int i = 0; i < rank(); ++i) {
      if (axes >> i & 1u) continue;
      text += (first ? " where " : ", ") + names_[static_cast<std::size_t>(i)] + "=" +
              std::to_string(coordinate(device, i));
      first = false;
    }
    return text;
  }
  // "(4, 2)"
  std::string shape_text() const {
    std::string text = "(";
    for (std::size_t i = 0; i < shape_.size(); ++i)
      text += (i ? ", " : "") + names_[i] + "=" + std::to_string(shape_[i]);
    return text + ")";
  }

 private:
  int mixed_index(int device, axis_mask axes) const {
    int index = 0;
    for (int i = 0; i < rank(); ++i)
      if (axes >> i & 1u) index = index * shape_[static_cast<std::size_t>(i)] + coordinate(device, i);
    return index;
  }

  std::vector<int> shape_;
  std::vector<std::string> names_;
  int count_ = 1;
};

}  // namespace nax::detail
