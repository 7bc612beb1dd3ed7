// NCCL communicators of a Mesh over the CUDA devices of this process: every collective over
// device buffers and over host buffers (staged), against values computed by hand (xmap over a
// GPU mesh: test_maps.cu). Uses every device there is (1 is enough).
#include "device_support.hpp"

#include <nax/mesh/nccl_communicator.hpp>

#include <numeric>
#include <vector>

namespace {
NAX_AXIS(data);
NAX_AXIS(feature);
using namespace nax_cuda_test;
}  // namespace

TEST_CASE("nccl: collectives of a mesh over the CUDA devices") {
  if (no_device()) return;
  const int n = nax::cuda::device_count();
  nax::Mesh<data> mesh(nax::cuda::devices(), {n});
  std::vector<std::vector<float>> gathered(static_cast<std::size_t>(n));
  std::vector<float> reduced(static_cast<std::size_t>(n)), scattered(static_cast<std::size_t>(n));
  std::vector<std::vector<int>> exchanged(static_cast<std::size_t>(n)), shifted(static_cast<std::size_t>(n));
  mesh.run([&](nax::device_context<data>& device) {
    auto& comm = device.comm<data>();
    const int r = comm.rank();
    CHECK(comm.size() == n);
    // all_reduce in device memory
    auto dx = nax::cuda::to_device(nax::full<float, feature>(float(r + 1), 4));
    comm.all_reduce(dx.data(), 4);
    reduced[static_cast<std::size_t>(r)] = nax::cuda::to_host(dx)(0);
    // all_gather and reduce_scatter through host buffers (staged)
    std::vector<float> send(2, float(r)), recv(static_cast<std::size_t>(2 * n));
    comm.all_gather(send, recv);
    gathered[static_cast<std::size_t>(r)] = recv;
    std::vector<float> block(static_cast<std::size_t>(n), 1.f), one(1);
    comm.reduce_scatter(block, one);
    scattered[static_cast<std::size_t>(r)] = one[0];
    // all_to_all and permute (a ring shift)
    std::vector<int> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) out[static_cast<std::size_t>(j)] = 100 * r + j;
    comm.all_to_all(out, in);
    exchanged[static_cast<std::size_t>(r)] = in;
    nax::detail::permutation ring;
    for (int j = 0; j < n; ++j) ring.emplace_back(j, (j + 1) % n);
    std::vector<int> mine(1, r), got(1, -1);
    comm.permute(mine, got, ring);
    shifted[static_cast<std::size_t>(r)] = got;
    comm.barrier();
  });
  const float total = float(n * (n + 1) / 2);
  for (int r = 0; r < n; ++r) {
    CHECK(reduced[static_cast<std::size_t>(r)] == total);
    CHECK(scattered[static_cast<std::size_t>(r)] == float(n));
    for (int j = 0; j < n; ++j) {
      CHECK(gathered[static_cast<std::size_t>(r)][static_cast<std::size_t>(2 * j)] == float(j));
      CHECK(exchanged[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)] == 100 * j + r);
    }
    CHECK(shifted[static_cast<std::size_t>(r)][0] == (r + n - 1) % n);
  }
}
