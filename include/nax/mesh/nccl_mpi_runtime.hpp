// A Mesh over MPI processes with one CUDA device each, collectives through NCCL: the path to
// many nodes. nax::cuda::mpi_world() is its device list (ids = MPI ranks, as for
// nax::mpi::world()). Each process drives the GPU numbered by its rank among the ranks of its
// node (MPI_Comm_split_type shared), modulo the devices it sees (so a launcher that gives each
// rank one GPU through CUDA_VISIBLE_DEVICES works too). NCCL refuses two ranks on one GPU
// (compared by PCI bus id), so then every rank raises the same device_error, naming the counts.
//
// Building the mesh is collective over MPI_COMM_WORLD: world rank 0 makes the ncclUniqueId and
// broadcasts it with MPI, every member calls ncclCommInitRank (its mesh position is its NCCL
// rank), then ncclCommSplit once per set of mesh axes. Communicators are made with the mesh,
// never per call, and are the nccl_communicators of a one-process GPU mesh
// (nccl_communicator.hpp), so collectives read device memory in place and stage host memory.
// Included by <nax/cuda_mpi.hpp>; needs <mpi.h>, NCCL and the CUDA runtime (not nvcc).
#pragma once
#include <mpi.h>

#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi_communicator.hpp"
#include "nccl_communicator.hpp"

namespace nax::cuda::detail {

// MPI_COMM_WORLD duplicated for the duration of a setup, so that nax's messages never match
// the user's (errors returned, not fatal).
class private_world {
 public:
  explicit private_world(const char* where) {
    nax::detail::mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup", std::string("in ") + where);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  private_world(const private_world&) = delete;
  private_world& operator=(const private_world&) = delete;
  ~private_world() { MPI_Comm_free(&comm_); }
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Whether every rank of comm passes `ok` (collective: all learn the same answer).
inline bool all_ranks(MPI_Comm comm, bool ok, const char* where) {
  int mine = ok ? 1 : 0, all = 0;
  nax::detail::mpi_check(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce",
                         std::string("in ") + where);
  return all != 0;
}

// The GPU a rank drives: its rank among the ranks of its node, modulo the devices it sees
// (all of the node's, or one each when the launcher gives each rank its own through
// CUDA_VISIBLE_DEVICES). Collective over comm.
struct rank_gpu {
  int device = -1;                  // -1: this rank sees no usable CUDA device
  int node_ranks = 0, visible = 0;  // ranks on this node, devices this rank sees
  bool shared = false;              // another rank of this node drives the same GPU
};
inline rank_gpu choose_rank_gpu(MPI_Comm comm, const char* where) {
  using nax::detail::mpi_check;
  const std::string in = std::string("in ") + where;
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type", in);
  struct free_node {
    MPI_Comm* c;
    ~free_node() { MPI_Comm_free(c); }
  } free_later{&node};
  int rank = 0;
  rank_gpu r;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &r.node_ranks);
  r.visible = device_count();
  // The PCI bus id names a GPU the same way whatever numbering each rank sees.
  constexpr int id_length = 32;
  std::vector<char> ids(static_cast<std::size_t>(id_length) * static_cast<std::size_t>(r.node_ranks), '\0');
  char mine[id_length] = {};
  if (r.visible > 0) {
    r.device = rank % r.visible;
    if (cudaDeviceGetPCIBusId(mine, id_length, r.device) != cudaSuccess) {
      (void)cudaGetLastError();
      r.device = -1;
      mine[0] = '\0';
    }
  }
  mpi_check(MPI_Allgather(mine, id_length, MPI_CHAR, ids.data(), id_length, MPI_CHAR, node), "MPI_Allgather", in);
  for (int other = 0; other < r.node_ranks && r.device >= 0; ++other)
    if (other != rank && std::strncmp(mine, &ids[static_cast<std::size_t>(other) * id_length], id_length) == 0)
      r.shared = true;
  return r;
}

// This rank's GPU; device_error on every rank when some rank has none of its own.
inline int mpi_rank_device(MPI_Comm comm, const char* where) {
  const rank_gpu r = choose_rank_gpu(comm, where);
  const bool fits = r.device >= 0 && !r.shared;
  if (!all_ranks(comm, fits, where))
    throw device_error(std::string(where) + ": NCCL needs a CUDA device of its own for each MPI rank, and " +
                       (fits ? std::string("another node") : std::string("this node")) + " has too few (this node: " +
                       std::to_string(r.node_ranks) + " MPI ranks, " + std::to_string(r.visible) +
                       " CUDA devices visible to this rank)");
  return r.device;
}

class nccl_mpi_runtime final : public nax::detail::mesh_runtime {
 public:
  nccl_mpi_runtime(const std::vector<int>& device_ids, const nax::detail::mesh_geometry& geometry) {
    using nax::detail::axis_mask;
    using nax::detail::mpi_check;
    constexpr const char* where = "Mesh over nax::cuda::mpi_world()";
    nax::detail::require_mpi_initialised(where);
    const private_world world_copy(where);
    const MPI_Comm base = world_copy.get();
    int world_rank = 0;
    mpi_check(MPI_Comm_rank(base, &world_rank), "MPI_Comm_rank", "on MPI_COMM_WORLD");
    for (std::size_t position = 0; position < device_ids.size(); ++position)
      if (device_ids[position] == world_rank) local_.push_back(static_cast<int>(position));
    gpu_ = mpi_rank_device(base, where);

    // The unique id, with rank 0's status, so that a failure there is raised everywhere.
    struct {
      int status;
      ncclUniqueId id;
    } message{};
    if (world_rank == 0) message.status = static_cast<int>(ncclGetUniqueId(&message.id));
    mpi_check(MPI_Bcast(&message, static_cast<int>(sizeof message), MPI_BYTE, 0, base), "MPI_Bcast",
              "sending the NCCL unique id");
    check_nccl(static_cast<ncclResult_t>(message.status), "ncclGetUniqueId (on MPI rank 0)");
    // What can fail on one rank alone fails before any rank waits in NCCL for the others.
    std::string why;
    try {
      if (!local_.empty()) {
        device_guard check(gpu_);
      }
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!all_ranks(base, why.empty(), where))
      throw device_error(std::string(where) + ": an MPI rank could not make its GPU current" +
                         (why.empty() ? std::string() : ": " + why));
    if (local_.empty()) return;  // this rank runs no device of the mesh

    device_guard guard(gpu_);
    const int position = local_.front();
    ncclComm_t raw = nullptr;
    NAX_NCCL_CHECK(ncclCommInitRank(&raw, static_cast<int>(device_ids.size()), message.id, position));
    // Owned at once, so that a failed split below does not leak it.
    std::unique_ptr<ncclComm, ncclResult_t (*)(ncclComm_t)> world(raw, &ncclCommDestroy);
    const axis_mask sets = axis_mask{1} << geometry.rank();
    comms_.resize(sets);
    for (axis_mask axes = 1; axes < sets; ++axes) {
      ncclComm_t comm = nullptr;
      if (axes == geometry.all_axes())
        comm = world.get();
      else
        NAX_NCCL_CHECK(ncclCommSplit(world.get(), geometry.group_index(position, axes),
                                     geometry.rank_in_group(position, axes), &comm, nullptr));
      comms_[axes] = std::make_unique<nccl_communicator>(comm, gpu_, "over " + geometry.group_text(position, axes));
      if (axes == geometry.all_axes()) (void)world.release();  // now owned by its communicator
      const int expected_rank = geometry.rank_in_group(position, axes);
      if (comms_[axes]->size() != geometry.group_size(axes) || comms_[axes]->rank() != expected_rank)
        throw device_error("ncclCommSplit over " + geometry.axes_text(axes) + " gave " +
                           std::to_string(comms_[axes]->size()) + " members (rank " +
                           std::to_string(comms_[axes]->rank()) + "), expected " +
                           std::to_string(geometry.group_size(axes)) + " (rank " + std::to_string(expected_rank) + ")");
    }
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
// this rank's GPU (its rank among the ranks of its node, modulo the devices it sees) current
// in the calling thread, so that the nax::cuda arrays made after it live there. Collective:
// every rank calls it. device_error when MPI is not initialised or some rank has no GPU of
// its own (on every rank alike).
inline device_list mpi_world() {
  constexpr const char* where = "nax::cuda::mpi_world()";
  nax::detail::require_mpi_initialised(where);
  const detail::private_world world_copy(where);
  int size = 0;
  nax::detail::mpi_check(MPI_Comm_size(world_copy.get(), &size), "MPI_Comm_size", "on MPI_COMM_WORLD");
  const int gpu = detail::mpi_rank_device(world_copy.get(), where);
  NAX_CUDA_CHECK(cudaSetDevice(gpu));
  static auto const platform = std::make_shared<const detail::cuda_mpi_platform>();
  std::vector<int> ids(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) ids[static_cast<std::size_t>(rank)] = rank;
  return device_list(device_kind::cuda, std::move(ids), platform);
}

}  // namespace nax::cuda
