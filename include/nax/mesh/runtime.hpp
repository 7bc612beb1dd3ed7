// What a Mesh asks of its device kind: build the communicators of every axis set once, say which
// devices live in this process, and run a function on them. One implementation per kind
// (host_runtime.hpp, mpi_communicator.hpp); mesh.hpp sees only this interface, so that the host
// library never includes mpi.h.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "communicator.hpp"
#include "geometry.hpp"

namespace nax::detail {

class mesh_runtime {
 public:
  virtual ~mesh_runtime() = default;
  // The communicator of `device` (a mesh device index, local to this process) for the group over
  // the axes in `axes` (non-empty). Created with the runtime, never per call.
  virtual communicator& comm(axis_mask axes, int device) = 0;
  virtual bool is_local(int device) const = 0;
  virtual std::vector<int> const& local_devices() const = 0;
  // Runs body(device) for every local device (concurrently where there are several), returns
  // when all are done, rethrows a failure (see Mesh::run).
  virtual void run(std::function<void(int device)> const& body) = 0;
};

class device_platform {
 public:
  virtual ~device_platform() = default;
  // device_ids[d] is the device (of the platform's numbering) at mesh position d.
  virtual std::shared_ptr<mesh_runtime> make_runtime(std::vector<int> const& device_ids,
                                                     mesh_geometry const& geometry) const = 0;
};

}  // namespace nax::detail
