// A Mesh over MPI processes with one CUDA device each, collectives through NCCL: the path to
// many nodes. nax::cuda::mpi_world() is its device list (ids = MPI ranks, as for
// nax::mpi::world()). Each process drives the GPU whose number is its rank among the ranks of
// its node (MPI_Comm_split_type shared); NCCL refuses two ranks on one GPU, so a node with more
// ranks than GPUs raises device_error on every rank, naming both counts.
//
// Building the mesh is collective over MPI_COMM_WORLD: world rank 0 makes the ncclUniqueId and
// broadcasts it with MPI, every member calls ncclCommInitRank (its mesh position is its NCCL
// rank), then ncclCommSplit once per set of mesh axes. Communicators are made with the mesh,
// never per call, and are the nccl_communicators of a one-process GPU mesh
// (nccl_communicator.hpp), so collectives read device memory in place and stage host memory.
// Included by <nax/cuda_mpi.hpp>; needs <mpi.h>, NCCL and the CUDA runtime (not nvcc).
#pragma once
#include <mpi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi_communicator.hpp"
#include "nccl_communicator.hpp"

namespace nax::cuda::detail {

// This process's rank among the MPI ranks of its node, and their number. Collective.
inline std::pair<int, int> node_rank_and_size() {
  using nax::detail::mpi_check;
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type", "grouping the MPI ranks of this node");
  int rank = 0, size = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return {rank, size};
}

// The GPU this rank drives. Collective: every rank learns whether some node has more ranks
// than GPUs, so that all raise the same error instead of some waiting in NCCL for the others.
inline int mpi_rank_device(const char* where) {
  const auto [rank, size] = node_rank_and_size();
  const int gpus = device_count();
  int fits = rank < gpus ? 1 : 0, all_fit = 0;
  nax::detail::mpi_check(MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce",
                         std::string("in ") + where);
  if (!all_fit)
    throw device_error(std::string(where) + ": NCCL needs a CUDA device of its own for each MPI rank, and " +
                       (fits ? std::string("another node") : std::string("this node")) + " has too few (this node: " +
                       std::to_string(size) + " MPI ranks, " + std::to_string(gpus) + " CUDA devices)");
  return rank;
}

class nccl_mpi_runtime final : public nax::detail::mesh_runtime {
 public:
  nccl_mpi_runtime(const std::vector<int>& device_ids, const nax::detail::mesh_geometry& geometry) {
    using nax::detail::axis_mask;
    using nax::detail::mpi_check;
    nax::detail::require_mpi_initialised("Mesh over nax::cuda::mpi_world()");
    int world_rank = 0;
    mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank", "on MPI_COMM_WORLD");
    for (std::size_t position = 0; position < device_ids.size(); ++position)
      if (device_ids[position] == world_rank) local_.push_back(static_cast<int>(position));
    gpu_ = mpi_rank_device("Mesh over nax::cuda::mpi_world()");

    // The unique id, with rank 0's status, so that a failure there is raised everywhere.
    struct {
      int status;
      ncclUniqueId id;
    } message{};
    if (world_rank == 0) message.status = static_cast<int>(ncclGetUniqueId(&message.id));
    mpi_check(MPI_Bcast(&message, static_cast<int>(sizeof message), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast",
              "sending the NCCL unique id");
    check_nccl(static_cast<ncclResult_t>(message.status), "ncclGetUniqueId (on MPI rank 0)");
    if (local_.empty()) return;  // this rank runs no device of the mesh

    device_guard guard(gpu_);
    const int position = local_.front();
    ncclComm_t world = nullptr;
    NAX_NCCL_CHECK(ncclCommInitRank(&world, static_cast<int>(device_ids.size()), message.id, position));
    const axis_mask sets = axis_mask{1} << geometry.rank();
    comms_.resize(sets);
    for (axis_mask axes = 1; axes < sets; ++axes) {
      ncclComm_t comm = world;
      if (axes != geometry.all_axes())
        NAX_NCCL_CHECK(ncclCommSplit(world, geometry.group_index(position, axes),
                                     geometry.rank_in_group(position, axes), &comm, nullptr));
      comms_[axes] = std::make_unique<nccl_communicator>(comm, gpu_, "over " + geometry.group_text(position, axes));
    }
    if (geometry.rank() == 0) (void)ncclCommDestroy(world);  // a mesh of no axes uses none
  }

  nax::detail::communicator& comm(nax::detail::axis_mask axes, int device) override {
    if (!is_local(device))
      throw argument_error("mesh over nax::cuda::mpi_world(): device " + std::to_string(device) +
                           " is not run by this process");
    return *comms_.at(axes);
  }
  bool is_local(int device) const override { return !local_.empty() && device == local_.front(); }
  std::vector<int> const& local_devices() const override { return local_; }

  // This rank's device runs in the calling thread, with its GPU current. As on an MPI mesh of
  // host devices, a failure reaches this rank's caller only.
  void run(std::function<void(int)> const& body) override {
    for (int device : local_) {
      device_guard guard(gpu_);
      body(device);
    }
  }

 private:
  std::vector<int> local_;
  int gpu_ = 0;
  std::vector<std::unique_ptr<nccl_communicator>> comms_;  // [axis set]
};

class cuda_mpi_platform final : public nax::detail::device_platform {
 public:
  std::shared_ptr<nax::detail::mesh_runtime> make_runtime(std::vector<int> const& device_ids,
                                                          nax::detail::mesh_geometry const& geometry) const override {
    return std::make_shared<nccl_mpi_runtime>(device_ids, geometry);
  }
};

}  // namespace nax::cuda::detail

namespace nax::cuda {

// One CUDA device per rank of MPI_COMM_WORLD (ids = ranks), collectives through NCCL. Makes
// this rank's GPU (its rank among the ranks of its node) current in the calling thread, so
// that the nax::cuda arrays made after it live there. Collective: every rank calls it.
// device_error when MPI is not initialised or a node has more ranks than GPUs.
inline device_list mpi_world() {
  nax::detail::require_mpi_initialised("nax::cuda::mpi_world");
  int size = 0;
  nax::detail::mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size", "on MPI_COMM_WORLD");
  const int gpu = detail::mpi_rank_device("nax::cuda::mpi_world()");
  NAX_CUDA_CHECK(cudaSetDevice(gpu));
  static auto const platform = std::make_shared<const detail::cuda_mpi_platform>();
  std::vector<int> ids(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) ids[static_cast<std::size_t>(rank)] = rank;
  return device_list(device_kind::cuda, std::move(ids), platform);
}

}  // namespace nax::cuda
