// nax::traffic_meter: what a mesh's collectives move. It wraps a device list; a Mesh built
// over meter.devices() runs as over the wrapped list, and every call its communicators
// receive is counted per device: calls of each kind and the bytes a bandwidth-optimal
// algorithm delivers to that device for them (NCCL's "bus bandwidth" accounting):
//   all_reduce of S bytes     2 (n - 1) / n * S      all_gather of S per member   (n - 1) * S
//   reduce_scatter, S kept    (n - 1) * S            all_to_all, S per peer        (n - 1) * S
//   permute of S              S when another member sends to this one, else 0
// (n: the group's members). It measures what a program asks the transport for, which is what
// nax decides; what the transport then does is its own (bench/collectives.cpp times both).
//
//   nax::traffic_meter meter(nax::host::devices(4));
//   nax::Mesh<data> mesh(meter.devices(), {4});
//   nax::xmap<nax::bind<batch, data>>(step, mesh)(x);
//   meter.of(0).permute.bytes;   // what device 0 received through ppermute
//
// Records are written by each device's own thread while Mesh::run runs: read them after it
// returns. Devices are mesh positions local to this process.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "devices.hpp"
#include "runtime.hpp"

namespace nax {

struct collective_count {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

struct traffic_record {
  collective_count all_reduce, all_gather, reduce_scatter, all_to_all, permute;
  std::uint64_t calls() const {
    return all_reduce.calls + all_gather.calls + reduce_scatter.calls + all_to_all.calls + permute.calls;
  }
  std::uint64_t bytes() const {
    return all_reduce.bytes + all_gather.bytes + reduce_scatter.bytes + all_to_all.bytes + permute.bytes;
  }
};

namespace detail {

using traffic_records = std::vector<traffic_record>;

class metered_communicator final : public communicator {
 public:
  metered_communicator(communicator& inner, traffic_record& record) : inner_(inner), record_(record) {}
  NAX_COMMUNICATOR_USING_WRAPPERS;

  int size() const override { return inner_.size(); }
  int rank() const override { return inner_.rank(); }
  std::string describe() const override { return inner_.describe(); }
  bool reads_device_memory() const override { return inner_.reads_device_memory(); }

  void all_reduce(void* data, index_t count, dtype type, reduce_op op) override {
    inner_.all_reduce(data, count, type, op);
    const std::uint64_t n = static_cast<std::uint64_t>(size());
    add(record_.all_reduce, 2 * (n - 1) * bytes(count, type) / n);
  }
  void all_gather(const void* send, void* recv, index_t count, dtype type) override {
    inner_.all_gather(send, recv, count, type);
    add(record_.all_gather, others() * bytes(count, type));
  }
  void reduce_scatter(const void* send, void* recv, index_t count, dtype type, reduce_op op) override {
    inner_.reduce_scatter(send, recv, count, type, op);
    add(record_.reduce_scatter, others() * bytes(count, type));
  }
  void all_to_all(const void* send, void* recv, index_t count, dtype type) override {
    inner_.all_to_all(send, recv, count, type);
    add(record_.all_to_all, others() * bytes(count, type));
  }
  void permute(const void* send, void* recv, index_t count, dtype type, const permutation& pairs) override {
    inner_.permute(send, recv, count, type, pairs);
    const int source = permutation_source(pairs, rank());
    add(record_.permute, source >= 0 && source != rank() ? bytes(count, type) : 0);
  }
  void barrier() override { inner_.barrier(); }

 private:
  static std::uint64_t bytes(index_t count, dtype type) {
    return static_cast<std::uint64_t>(count) * dtype_size(type);
  }
  std::uint64_t others() const { return static_cast<std::uint64_t>(size() - 1); }
  static void add(collective_count& c, std::uint64_t moved) {
    ++c.calls;
    c.bytes += moved;
  }

  communicator& inner_;
  traffic_record& record_;
};

class metered_runtime final : public mesh_runtime {
 public:
  metered_runtime(std::shared_ptr<mesh_runtime> inner, mesh_geometry const& geometry,
                  std::shared_ptr<traffic_records> records)
      : inner_(std::move(inner)), records_(std::move(records)) {
    if (records_->size() < static_cast<std::size_t>(geometry.device_count()))
      records_->resize(static_cast<std::size_t>(geometry.device_count()));
    const axis_mask sets = axis_mask{1} << geometry.rank();
    comms_.resize(sets);
    for (axis_mask axes = 1; axes < sets; ++axes) {
      comms_[axes].resize(static_cast<std::size_t>(geometry.device_count()));
      for (int device : inner_->local_devices())
        comms_[axes][static_cast<std::size_t>(device)] = std::make_unique<metered_communicator>(
            inner_->comm(axes, device), (*records_)[static_cast<std::size_t>(device)]);
    }
  }
  communicator& comm(axis_mask axes, int device) override {
    auto& c = comms_.at(axes).at(static_cast<std::size_t>(device));
    if (!c) return inner_->comm(axes, device);  // not local: the inner runtime says so
    return *c;
  }
  bool is_local(int device) const override { return inner_->is_local(device); }
  std::vector<int> const& local_devices() const override { return inner_->local_devices(); }
  void run(std::function<void(int device)> const& body) override { inner_->run(body); }

 private:
  std::shared_ptr<mesh_runtime> inner_;
  std::shared_ptr<traffic_records> records_;
  std::vector<std::vector<std::unique_ptr<metered_communicator>>> comms_;  // [axis set][device]
};

class metered_platform final : public device_platform {
 public:
  metered_platform(device_list inner, std::shared_ptr<traffic_records> records)
      : inner_(std::move(inner)), records_(std::move(records)) {}
  std::shared_ptr<mesh_runtime> make_runtime(std::vector<int> const& device_ids,
                                             mesh_geometry const& geometry) const override {
    return std::make_shared<metered_runtime>(inner_.platform().make_runtime(device_ids, geometry), geometry,
                                             records_);
  }

 private:
  device_list inner_;  // keeps the wrapped platform alive
  std::shared_ptr<traffic_records> records_;
};

}  // namespace detail

class traffic_meter {
 public:
  explicit traffic_meter(device_list devices)
      : records_(std::make_shared<detail::traffic_records>()),
        devices_(devices.kind(), devices.ids(), std::make_shared<const detail::metered_platform>(devices, records_)) {}

  // The wrapped devices, metered: build a Mesh over these.
  device_list const& devices() const { return devices_; }
  // What the device at mesh position `device` was asked to move since the last reset.
  traffic_record of(int device) const {
    if (device < 0 || static_cast<std::size_t>(device) >= records_->size())
      throw argument_error("nax::traffic_meter::of(" + std::to_string(device) + "): no mesh over these devices has " +
                           "a device at that position (" + std::to_string(records_->size()) + " recorded)");
    return (*records_)[static_cast<std::size_t>(device)];
  }
  void reset() {
    for (auto& r : *records_) r = {};
  }

 private:
  std::shared_ptr<detail::traffic_records> records_;
  device_list devices_;
};

}  // namespace nax
