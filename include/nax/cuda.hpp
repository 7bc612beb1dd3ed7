// nax's CUDA backend (opt-in; compile with nvcc, link CUDA::cudart and CUDA::cublas):
//   nax::cuda::Array<T, axes...>, ArrayView; to_device(x), to_host(d); eval(e), item(e);
//   device_count(), has_device(), stream(), synchronize().
// Assigning an expression of device arrays to a nax::cuda::Array runs one fused kernel;
// reductions fuse their producer; dot<k...> calls cuBLAS. Expressions mixing host and
// device arrays do not compile. grad/value_and_grad, vmap and xmap/pmap of programs over
// device arrays run on the device, their collectives included; device_put of device arrays
// makes a nax::cuda::GlobalArray (device shards). The NCCL communicator is
// <nax/mesh/nccl_communicator.hpp>.
// See docs/cuda.md.
#pragma once
#if !defined(__CUDACC__)
#error "nax/cuda.hpp is CUDA code: include it from a .cu file compiled by nvcc"
#endif

#include "nax.hpp"

#include "backend/cuda/error.hpp"
#include "backend/cuda/device.hpp"
#include "backend/cuda/buffer.hpp"
#include "backend/cuda/array.hpp"
#include "backend/cuda/context.hpp"
#include "backend/cuda/elementwise.hpp"
#include "backend/cuda/assign.hpp"
#include "backend/cuda/copy.hpp"
#include "backend/cuda/reduce.hpp"
#include "backend/cuda/cublas.hpp"
#include "backend/cuda/contract.hpp"
#include "backend/cuda/join.hpp"
#include "backend/cuda/index.hpp"
#include "backend/cuda/scan.hpp"
#include "backend/cuda/sort.hpp"
#include "backend/cuda/space.hpp"
#include "mesh/space_on_mesh_cuda.hpp"
#include "mesh/collective_cuda.hpp"
#include "mesh/global_array_cuda.hpp"
#include "io/dlpack_cuda.hpp"
