// NCCL communicators of a Mesh over the CUDA devices of this process: every collective over
// device buffers, host buffers and another GPU's buffers (staged), and of zero elements (null
// buffers), against values computed by hand (xmap over a GPU mesh: test_maps.cu). Uses every
// device there is (1 is enough). Then a device that fails: with one GPU, before any collective
// (rethrown, the mesh still works); with two or more, while the others wait for it inside NCCL
// (they cancel their part instead of hanging, run() rethrows the original failure, and the
// mesh then refuses to run, saying why).
#include "device_support.hpp"

#include <nax/mesh/nccl_communicator.hpp>

#include <atomic>
#include <chrono>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
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
  // Each member's buffer on the next GPU (on its own with one): staged by peer copies, since
  // NCCL takes only memory of the communicator's device. Written (and waited for) beforehand.
  std::vector<nax::cuda::Array<float, feature>> elsewhere;
  for (int r = 0; r < n; ++r)
    elsewhere.push_back(nax::cuda::to_device(nax::full<float, feature>(float(r + 1), 5), (r + 1) % n));
  mesh.run([&](nax::mesh_device<data>& device) {
    auto& comm = device.comm<data>();
    const int r = comm.rank();
    CHECK(comm.size() == n);
    // Zero elements: null buffers (an empty array's data()), nothing moves, NCCL is not called.
    nax::cuda::Array<float, feature> empty({0});
    CHECK(empty.data() == nullptr);
    comm.all_reduce(empty.data(), 0);
    comm.all_gather(static_cast<const float*>(nullptr), empty.data(), 0);
    comm.reduce_scatter(static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0);
    comm.all_to_all(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0);
    CHECK_THROWS_WITH_AS(comm.all_reduce(empty.data(), -3), "all_reduce: negative count -3", nax::argument_error);
    comm.all_reduce(elsewhere[static_cast<std::size_t>(r)].data(), 5);
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
  if (n < 2) MESSAGE("one CUDA device: buffers on another GPU (staged by peer copies) need two");
  for (int r = 0; r < n; ++r) {
    CHECK(elsewhere[static_cast<std::size_t>(r)].device() == (r + 1) % n);
    auto back = nax::cuda::to_host(elsewhere[static_cast<std::size_t>(r)]);
    CHECK(back(0) == total);
    CHECK(back(4) == total);
    CHECK(reduced[static_cast<std::size_t>(r)] == total);
    CHECK(scattered[static_cast<std::size_t>(r)] == float(n));
    for (int j = 0; j < n; ++j) {
      CHECK(gathered[static_cast<std::size_t>(r)][static_cast<std::size_t>(2 * j)] == float(j));
      CHECK(exchanged[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)] == 100 * j + r);
    }
    CHECK(shifted[static_cast<std::size_t>(r)][0] == (r + n - 1) % n);
  }
}

TEST_CASE("nccl: a device that throws; the devices waiting for it in NCCL stop waiting") {
  if (no_device()) return;
  const int n = nax::cuda::device_count();
  nax::Mesh<data> mesh(nax::cuda::devices(), {n});
  auto fail_last = [&](bool others_wait) {
    std::atomic<int> entering{0};
    mesh.run([&](nax::mesh_device<data>& device) {
      if (device.position() == n - 1) {
        // Once the others are entering the collective (given 200 ms, they are inside NCCL).
        while (others_wait && entering.load() < n - 1) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        throw std::runtime_error("device " + std::to_string(n - 1) + " gave up");
      }
      if (others_wait) {
        std::vector<float> x(4, 1.f);  // host memory: staged, copied back after the wait
        ++entering;
        device.comm<data>().all_reduce(x);  // never completes: the last device does not join
      }
    });
  };
  CHECK_THROWS_WITH_AS(fail_last(false), ("device " + std::to_string(n - 1) + " gave up").c_str(), std::runtime_error);
  // Nobody had to cancel anything: the mesh still works.
  std::vector<std::vector<int>> values(static_cast<std::size_t>(n), std::vector<int>{1});
  mesh.run([&](nax::mesh_device<data>& device) { device.comm<data>().all_reduce(values[static_cast<std::size_t>(device.position())]); });
  for (auto const& v : values) CHECK(v[0] == n);
  if (n < 2) {
    MESSAGE("one CUDA device: the case of devices waiting inside NCCL for a failed one needs two");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(fail_last(true), ("device " + std::to_string(n - 1) + " gave up").c_str(), std::runtime_error);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));
  try {
    mesh.run([](nax::mesh_device<data>&) {});
    FAIL("a mesh whose communicators were cancelled ran again");
  } catch (nax::device_error const& e) {
    const std::string text = e.what();
    CHECK(text.find("NCCL communicators were cancelled") != std::string::npos);
    CHECK(text.find("device " + std::to_string(n - 1) + " threw: device " + std::to_string(n - 1) + " gave up") !=
          std::string::npos);
  }
}
