// The runtime of a mesh over host devices (emulated devices in this process): one host_group
// per group of every axis set, created with the mesh; a persistent thread per device runs
// Mesh::run's function (a mesh of one device runs it on the caller: thread_pool.hpp). A device
// that throws raises the mesh's abort flag, so devices waiting for it in a collective throw too
// instead of waiting forever; run() rethrows the original.
#pragma once
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "geometry.hpp"
#include "host_communicator.hpp"
#include "runtime.hpp"
#include "thread_pool.hpp"

namespace nax::detail {

class host_runtime final : public mesh_runtime {
 public:
  explicit host_runtime(mesh_geometry const& geometry)
      : geometry_(geometry), pool_(geometry.device_count(), /*single_on_caller=*/true) {
    int devices = geometry.device_count();
    for (int device = 0; device < devices; ++device) local_.push_back(device);
    axis_mask sets = axis_mask{1} << geometry.rank();
    comms_.resize(sets);
    for (axis_mask axes = 1; axes < sets; ++axes) {
      std::vector<host_group*> groups(static_cast<std::size_t>(geometry.group_count(axes)), nullptr);
      auto& members = comms_[axes];
      members.resize(static_cast<std::size_t>(devices));
      for (int device = 0; device < devices; ++device) {
        auto& group = groups[static_cast<std::size_t>(geometry.group_index(device, axes))];
        if (!group) {
          groups_.push_back(std::make_unique<host_group>(
              geometry.group_size(axes), "host group " + geometry.group_text(device, axes),
              &abort_, devices));
          group = groups_.back().get();
        }
        members[static_cast<std::size_t>(device)] =
            &group->member(geometry.rank_in_group(device, axes));
        device_groups_.resize(static_cast<std::size_t>(devices));
        device_groups_[static_cast<std::size_t>(device)].push_back(group);
      }
    }
  }

  communicator& comm(axis_mask axes, int device) override {
    return *comms_.at(axes).at(static_cast<std::size_t>(device));
  }
  bool is_local(int device) const override {
    return device >= 0 && device < geometry_.device_count();
  }
  std::vector<int> const& local_devices() const override { return local_; }

  void run(std::function<void(int)> const& body) override {
    if (pool_.is_worker_thread())
      throw device_error("Mesh::run: called from inside a device of the same mesh (nested run "
                         "would wait for itself)");
    // One run at a time, its reset included: resetting the groups while another caller's run
    // is under way would corrupt its barriers.
    std::unique_lock serial(run_mutex_);
    auto failures = pool_.run([&](int device) {
      struct departure {  // whatever way the device leaves, its groups stop waiting for it
        host_runtime* runtime;
        int device;
        ~departure() {
          for (host_group* group : runtime->device_groups_[static_cast<std::size_t>(device)])
            group->depart();
        }
      } leave{this, device};
      abort_.run_device(device, [&] { body(device); });
    });
    for (auto& group : groups_) group->reset();
    abort_.reset();
    serial.unlock();
    rethrow_first_failure(failures);
  }

 private:
  mesh_geometry geometry_;
  host_abort_state abort_;  // before the groups: they hold its address
  std::vector<std::unique_ptr<host_group>> groups_;
  std::vector<std::vector<host_communicator*>> comms_;    // [axis set][device]
  std::vector<std::vector<host_group*>> device_groups_;  // [device]: the groups it belongs to
  std::vector<int> local_;
  std::mutex run_mutex_;
  device_thread_pool pool_;  // last: its threads start after everything else exists
};

class host_platform final : public device_platform {
 public:
  std::shared_ptr<mesh_runtime> make_runtime(std::vector<int> const&,
                                             mesh_geometry const& geometry) const override {
    return std::make_shared<host_runtime>(geometry);
  }
};

}  // namespace nax::detail
