// Meshes over MPI ranks with one CUDA device each (nax::cuda::mpi_world(), NCCL communicators
// made from a unique id broadcast with MPI), on 2 ranks (ctest -R cuda_mpi). Host code: the
// communicators need the CUDA runtime and NCCL, not nvcc. Every test case is collective.
//  - Where a node has fewer GPUs than ranks (CI: none), every rank must raise the same
//    device_error naming both counts, instead of some ranks waiting in NCCL.
//  - Where every rank has a GPU of its own, every collective over device and host buffers on
//    1-D and 2-D meshes, and an xmap, against values computed by hand; else the case prints
//    that it skipped.
#include <nax/cuda_mpi.hpp>
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <vector>

namespace cuda_mpi {

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(feature);

// Whether every rank has a GPU of its own (collective).
bool every_rank_has_a_gpu() {
  const auto r = nax::cuda::detail::choose_rank_gpu(MPI_COMM_WORLD, "the test");
  return nax::cuda::detail::all_ranks(MPI_COMM_WORLD, r.device >= 0 && !r.shared, "the test");
}

bool skipped() {
  if (every_rank_has_a_gpu()) return false;
  if (nax::mpi::world_rank() == 0) std::puts("CUDA MPI tests skipped: some MPI rank has no CUDA device of its own");
  MESSAGE("CUDA MPI tests skipped: some MPI rank has no CUDA device of its own");
  return true;
}

}  // namespace cuda_mpi

using namespace cuda_mpi;

TEST_CASE("cuda mpi: a node with fewer GPUs than ranks is the same device_error on every rank") {
  if (every_rank_has_a_gpu()) {
    MESSAGE("every rank has a GPU: the error cannot be provoked here");
    return;
  }
  const auto r = nax::cuda::detail::choose_rank_gpu(MPI_COMM_WORLD, "the test");
  const std::string counts = "this node: " + std::to_string(r.node_ranks) + " MPI ranks, " +
                             std::to_string(nax::cuda::device_count()) + " CUDA devices visible to this rank";
  CHECK_THROWS_WITH_AS(nax::cuda::mpi_world(), doctest::Contains("NCCL needs a CUDA device of its own"),
                       nax::device_error);
  // Every rank got here (none hangs in NCCL), and the message names this node's counts.
  try {
    (void)nax::cuda::mpi_world();
    FAIL("mpi_world() did not throw");
  } catch (const nax::device_error& e) {
    CHECK(std::string(e.what()).find(counts) != std::string::npos);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("cuda mpi: NCCL collectives over MPI ranks, device and host buffers, 1-D and 2-D meshes") {
  if (skipped()) return;
  const auto gpus = nax::cuda::mpi_world();
  const int n = gpus.count();
  CHECK(gpus.kind() == nax::device_kind::cuda);
  nax::Mesh<data> mesh(gpus, {n});
  mesh.run([&](nax::mesh_device<data>& device) {
    auto& comm = device.comm<data>();
    const int r = comm.rank();
    CHECK(comm.size() == n);
    CHECK(r == nax::mpi::world_rank());
    // all_reduce in device memory, in place
    nax::cuda::detail::device_buffer<float> d(4, nax::cuda::current_device());
    std::vector<float> host(4, float(r + 1));
    // (on nax's stream, where the buffer was allocated)
    const cudaStream_t s = nax::cuda::stream();
    NAX_CUDA_CHECK(cudaMemcpyAsync(d.data(), host.data(), 4 * sizeof(float), cudaMemcpyHostToDevice, s));
    NAX_CUDA_CHECK(cudaStreamSynchronize(s));
    comm.all_reduce(d.data(), 4);
    NAX_CUDA_CHECK(cudaMemcpyAsync(host.data(), d.data(), 4 * sizeof(float), cudaMemcpyDeviceToHost, s));
    NAX_CUDA_CHECK(cudaStreamSynchronize(s));
    for (float v : host) CHECK(v == float(n * (n + 1) / 2));
    // all_gather, reduce_scatter, all_to_all and a ring permute through host buffers (staged)
    std::vector<float> send(2, float(r)), recv(static_cast<std::size_t>(2 * n));
    comm.all_gather(send, recv);
    for (int j = 0; j < n; ++j) CHECK(recv[static_cast<std::size_t>(2 * j + 1)] == float(j));
    std::vector<float> block(static_cast<std::size_t>(n), 1.f), one(1);
    comm.reduce_scatter(block, one);
    CHECK(one[0] == float(n));
    std::vector<int> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) out[static_cast<std::size_t>(j)] = 100 * r + j;
    comm.all_to_all(out, in);
    for (int j = 0; j < n; ++j) CHECK(in[static_cast<std::size_t>(j)] == 100 * j + r);
    nax::detail::permutation ring;
    for (int j = 0; j < n; ++j) ring.emplace_back(j, (j + 1) % n);
    std::vector<int> mine(1, r), got(1, -1);
    comm.permute(mine, got, ring);
    CHECK(got[0] == (r + n - 1) % n);
  });
  if (n % 2 == 0) {
    // Groups from ncclCommSplit: a sum over `model` adds the two ranks of a pair only.
    nax::Mesh<data, model> grid(gpus, {n / 2, 2});
    grid.run([&](nax::mesh_device<data, model>& device) {
      auto& over_model = device.comm<model>();
      auto& over_data = device.comm<data>();
      CHECK(over_model.size() == 2);
      CHECK(over_data.size() == n / 2);
      std::vector<int> v(3, nax::mpi::world_rank());
      over_model.all_reduce(v);
      const int first = nax::mpi::world_rank() - nax::mpi::world_rank() % 2;
      for (int x : v) CHECK(x == 2 * first + 1);
    });
  }
}

TEST_CASE("cuda mpi: xmap over MPI ranks with NCCL gives every rank the whole result, bool too") {
  if (skipped()) return;
  const auto gpus = nax::cuda::mpi_world();
  const int n = gpus.count();
  nax::Mesh<data> mesh(gpus, {n});
  nax::Array<float, batch, feature> x({4 * n, 3});
  for (nax::index_t q = 0; q < x.size(); ++q) x.data()[q] = float(q % 7) - 3.f;
  auto program = [](const auto& xs) { return nax::psum<batch>(nax::sum<feature>(xs * xs)); };
  auto total = nax::xmap<nax::bind<batch, data>>(program, mesh)(x);
  float want = 0;
  for (nax::index_t q = 0; q < x.size(); ++q) want += x.data()[q] * x.data()[q];
  CHECK(total.item() == doctest::Approx(want).epsilon(1e-5));
  // A bool result that each rank holds a part of: combined as bytes (NCCL cannot add bools).
  auto signs = nax::xmap<nax::bind<batch, data>>([](const auto& xs) { return xs > 0.f; }, mesh)(x);
  REQUIRE(signs.extents() == x.extents());
  for (nax::index_t q = 0; q < x.size(); ++q) CHECK(signs.data()[q] == (x.data()[q] > 0.f));
}
