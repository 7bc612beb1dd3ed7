// Opt-in MPI backend: one nax device per MPI rank, host collectives through MPI.
// Include <nax/mpi.hpp> and link MPI (CMake: find_package(MPI) and MPI::MPI_CXX).
//
//   int main(int argc, char** argv) {
//     nax::mpi::environment env(argc, argv);            // MPI_Init_thread ... MPI_Finalize
//     nax::Mesh<data> mesh(nax::mpi::world(), {nax::mpi::world().count()});
//     mesh.run([&](nax::mesh_device<data>& device) { device.comm<data>().all_reduce(buffer); });
//   }
//   mpirun -np 4 ./program
//
// MPI is not initialised lazily: world() requires an initialised MPI (from an environment, or
// from the program's own MPI_Init, in which case the program finalises it too). A Mesh over
// world() is collective: every rank builds the same meshes in the same order, and destroys them
// before the environment ends. Its run(f) calls f on this rank's device only, in the calling
// thread (with the default MPI_THREAD_FUNNELED, call run from the thread that created the
// environment; ask for MPI_THREAD_MULTIPLE to call collectives from other threads).
#pragma once
#include <mpi.h>

#include <exception>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "mesh/devices.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mpi_communicator.hpp"

namespace nax::mpi {

// MPI_Init_thread in the constructor, MPI_Finalize in the destructor; or, when the destructor
// runs during stack unwinding (an exception is leaving main), MPI_Abort, since the other ranks
// could be waiting for this one and MPI_Finalize would wait for them. When MPI is already
// initialised, an environment does nothing either way.
class environment {
 public:
  environment(int& argc, char**& argv, int required_thread_level = MPI_THREAD_FUNNELED) {
    initialise(&argc, &argv, required_thread_level);
  }
  explicit environment(int required_thread_level = MPI_THREAD_FUNNELED) {
    initialise(nullptr, nullptr, required_thread_level);
  }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;
  ~environment() {
    if (!owner_ || !detail::mpi_is_initialised()) return;
    if (std::uncaught_exceptions() > exceptions_at_start_)
      MPI_Abort(MPI_COMM_WORLD, 1);
    else
      MPI_Finalize();
  }

  // The thread support MPI provides (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).
  int thread_level() const { return thread_level_; }
  // Whether this environment initialised MPI (and will finalise it).
  bool owns_mpi() const { return owner_; }

 private:
  void initialise(int* argc, char*** argv, int required) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised) {
      MPI_Query_thread(&thread_level_);
      return;
    }
    detail::mpi_check(MPI_Init_thread(argc, argv, required, &thread_level_), "MPI_Init_thread",
                      "in nax::mpi::environment");
    owner_ = true;
    if (thread_level_ < required) {
      MPI_Finalize();
      owner_ = false;
      throw device_error("MPI_Init_thread: requested thread level " + std::to_string(required) +
                         ", MPI provides only " + std::to_string(thread_level_));
    }
  }

  bool owner_ = false;
  int thread_level_ = 0;
  int exceptions_at_start_ = std::uncaught_exceptions();
};

inline int world_rank() {
  detail::require_mpi_initialised("nax::mpi::world_rank");
  int rank = 0;
  detail::mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank", "on MPI_COMM_WORLD");
  return rank;
}

inline int world_size() {
  detail::require_mpi_initialised("nax::mpi::world_size");
  int size = 0;
  detail::mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size", "on MPI_COMM_WORLD");
  return size;
}

// One device per rank of MPI_COMM_WORLD, ids = ranks 0..size-1; this process runs device
// world_rank(). device_error when MPI is not initialised.
inline device_list world() {
  int size = world_size();
  static auto const platform = std::make_shared<const detail::mpi_platform>();
  std::vector<int> ids(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) ids[static_cast<std::size_t>(rank)] = rank;
  return device_list(device_kind::mpi, std::move(ids), platform);
}

}  // namespace nax::mpi
