// Device lists: which devices a Mesh is built over. nax::host::devices(n) gives n emulated
// devices in this process (threads, shared-memory collectives); nax::mpi::world() (nax/mpi.hpp)
// one device per MPI rank. Public; the platform behind a list is nax::detail.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/errors.hpp"
#include "host_runtime.hpp"
#include "runtime.hpp"

namespace nax {

enum class device_kind { host, cuda, mpi };

constexpr std::string_view device_kind_name(device_kind kind) {
  switch (kind) {
    case device_kind::host: return "host";
    case device_kind::cuda: return "cuda";
    case device_kind::mpi: return "mpi";
  }
  return "unknown";
}

// An ordered list of devices of one kind. A Mesh places device ids()[d] at its position d
// (row-major over the mesh shape). Cheap to copy.
class device_list {
 public:
  device_list(device_kind kind, std::vector<int> ids,
              std::shared_ptr<const detail::device_platform> platform)
      : kind_(kind), ids_(std::move(ids)), platform_(std::move(platform)) {}

  device_kind kind() const { return kind_; }
  int count() const { return static_cast<int>(ids_.size()); }
  int size() const { return count(); }
  std::vector<int> const& ids() const { return ids_; }
  int operator[](int position) const { return ids_.at(static_cast<std::size_t>(position)); }
  detail::device_platform const& platform() const { return *platform_; }

  // "4 host devices"
  std::string describe() const {
    return std::to_string(count()) + " " + std::string(device_kind_name(kind_)) +
           (count() == 1 ? " device" : " devices");
  }

 private:
  device_kind kind_;
  std::vector<int> ids_;
  std::shared_ptr<const detail::device_platform> platform_;
};

namespace host {

// n emulated devices in this process, ids 0..n-1. Their collectives go through shared memory;
// Mesh::run gives each its own thread.
inline device_list devices(int n) {
  if (n < 1)
    throw argument_error("nax::host::devices(n): n must be at least 1, got " + std::to_string(n));
  static auto const platform = std::make_shared<const detail::host_platform>();
  std::vector<int> ids(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
  return device_list(device_kind::host, std::move(ids), platform);
}

}  // namespace host
}  // namespace nax
