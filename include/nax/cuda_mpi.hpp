// Opt-in: a Mesh over MPI processes with one CUDA device each, collectives through NCCL (the
// path to many nodes). Include next to <nax/mpi.hpp> (and <nax/cuda.hpp> for device arrays);
// link MPI, the CUDA runtime and NCCL (CMake: MPI::MPI_CXX and nax_cuda_backend). Compiles
// with the host compiler too: only device arrays need nvcc.
//
//   int main(int argc, char** argv) {
//     nax::mpi::environment env(argc, argv);
//     auto gpus = nax::cuda::mpi_world();   // collective; makes this rank's GPU current
//     nax::Mesh<data> mesh(gpus, {gpus.count()});
//     mesh.run([&](nax::mesh_device<data>& device) { device.comm<data>().all_reduce(buffer); });
//   }
//   mpirun -np 8 ./program                  // e.g. 2 nodes of 4 GPUs
//
// See docs/cuda.md ("Many processes").
#pragma once
#include "mpi.hpp"
#include "mesh/nccl_mpi_runtime.hpp"
