// Mesh<names...> over host devices: shapes and their errors, row-major coordinates, the groups
// behind comm<A...>() (membership and ranks), communicators made once, run() and its contexts.
#include <nax/mesh/mesh.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mesh_test_support.hpp"
#include "nax/core/tape_hooks.hpp"
#include "nax/mesh/axis_bindings.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(stage);

TEST_CASE("host::devices(n) lists n host devices with ids 0..n-1") {
  auto devices = nax::host::devices(3);
  CHECK(devices.kind() == nax::device_kind::host);
  CHECK(devices.count() == 3);
  CHECK(devices.size() == 3);
  CHECK(devices.ids() == std::vector<int>{0, 1, 2});
  CHECK(devices[2] == 2);
  CHECK(devices.describe() == "3 host devices");
  CHECK(nax::host::devices(1).describe() == "1 host device");
  CHECK_THROWS_WITH_AS(nax::host::devices(0), "nax::host::devices(n): n must be at least 1, got 0",
                       nax::argument_error);
  CHECK_THROWS_AS(nax::host::devices(-2), nax::argument_error);
}

TEST_CASE("a mesh shape must hold exactly the devices, with one extent >= 1 per axis") {
  CHECK_THROWS_WITH_AS((nax::Mesh<data, model>(nax::host::devices(6), {4, 2})),
                       "Mesh<data, model>: the shape (data=4, model=2) holds 8 devices, but the "
                       "device list has 6 host devices",
                       nax::argument_error);
  CHECK_THROWS_WITH_AS((nax::Mesh<data, model>(nax::host::devices(4), {4})),
                       "Mesh<data, model>: the shape has 1 extent for 2 mesh axes",
                       nax::argument_error);
  CHECK_THROWS_WITH_AS((nax::Mesh<data>(nax::host::devices(4), {2, 2})),
                       "Mesh<data>: the shape has 2 extents for 1 mesh axes", nax::argument_error);
  CHECK_THROWS_WITH_AS((nax::Mesh<data, model>(nax::host::devices(4), {0, 4})),
                       "Mesh<data, model>: mesh axis data has extent 0; extents must be >= 1",
                       nax::argument_error);
  CHECK_THROWS_WITH_AS((nax::Mesh<data, model>(nax::host::devices(4), {-2, -2})),
                       "Mesh<data, model>: mesh axis data has extent -2; extents must be >= 1",
                       nax::argument_error);
  // A product that overflows int must not wrap around to the device count.
  CHECK_THROWS_AS((nax::Mesh<data, model, stage>(nax::host::devices(4), {65536, 65536, 4})),
                  nax::argument_error);
  CHECK_NOTHROW((nax::Mesh<data, model>(nax::host::devices(4), std::array<int, 2>{2, 2})));
  CHECK_NOTHROW((nax::Mesh<data, model>(nax::host::devices(4), std::vector<int>{1, 4})));
}

TEST_CASE("a 1x1 mesh: one device, coordinates zero, groups of one") {
  nax::Mesh<data, model> mesh(nax::host::devices(1), {1, 1});
  CHECK(mesh.rank == 2);
  CHECK(mesh.device_count() == 1);
  CHECK(mesh.size<data>() == 1);
  CHECK(mesh.size<model>() == 1);
  CHECK(mesh.coordinates(0) == std::array<int, 2>{0, 0});
  CHECK(mesh.comm<data>(0).size() == 1);
  CHECK(mesh.comm<data, model>(0).rank() == 0);
  float x = 2.5f;
  mesh.run([&](auto& device) { device.template comm<data>().all_reduce(&x, 1); });
  CHECK(x == 2.5f);
}

TEST_CASE("coordinates are row-major over the mesh shape, as jax.sharding.Mesh") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  CHECK(decltype(mesh)::rank == 2);
  CHECK(mesh.size<data>() == 4);
  CHECK(mesh.size<model>() == 2);
  CHECK(mesh.shape() == std::array<int, 2>{4, 2});
  CHECK(mesh.device_count() == 8);
  for (int device = 0; device < 8; ++device) {
    CHECK(mesh.coordinates(device) == std::array<int, 2>{device / 2, device % 2});
    CHECK(mesh.coordinate<data>(device) == device / 2);
    CHECK(mesh.coordinate<model>(device) == device % 2);
    CHECK(mesh.device_at(mesh.coordinates(device)) == device);
  }
  CHECK(mesh.coordinates(5) == std::array<int, 2>{2, 1});
  CHECK_THROWS_WITH_AS(mesh.coordinates(8),
                       "Mesh<data, model>::coordinates: device 8 is outside the mesh's 8 devices",
                       nax::argument_error);
  CHECK_THROWS_AS(mesh.coordinate<data>(-1), nax::argument_error);
  CHECK_THROWS_WITH_AS(mesh.device_at({1, 2}),
                       "Mesh<data, model>::device_at: coordinate 2 on axis model is outside [0, 2)",
                       nax::argument_error);

  nax::Mesh<data, model, stage> cube(nax::host::devices(12), {2, 3, 2});
  for (int device = 0; device < 12; ++device)
    CHECK(cube.coordinates(device) == std::array<int, 3>{device / 6, device / 2 % 3, device % 2});
  CHECK(cube.size<model>() == 3);
  CHECK(nax::Mesh<data, model, stage>::name() == "Mesh<data, model, stage>");
}

// Every device's communicator over As has the group and rank the coordinates say.
template <class... As, class Mesh>
void check_groups(Mesh const& mesh) {
  for (int device = 0; device < mesh.device_count(); ++device) {
    auto members = mesh_test::group_members<Mesh, As...>(mesh, device);
    auto& comm = mesh.template comm<As...>(device);
    CAPTURE(device);
    CHECK(comm.size() == static_cast<int>(members.size()));
    CHECK(comm.rank() == mesh_test::rank_in_group<Mesh, As...>(mesh, device));
    // The same communicator object on every call: made once with the mesh.
    CHECK(&mesh.template comm<As...>(device) == &comm);
  }
}

TEST_CASE("group membership and ranks of every axis set, for meshes 4, 2x2, 4x2, 2x3x2") {
  nax::Mesh<data> line(nax::host::devices(4), {4});
  check_groups<data>(line);
  CHECK(line.comm<data>(3).rank() == 3);
  CHECK(line.comm<data>(3).describe() == "host group over {data} (4 members), member 3");

  nax::Mesh<data, model> square(nax::host::devices(4), {2, 2});
  check_groups<data>(square);
  check_groups<model>(square);
  check_groups<data, model>(square);

  nax::Mesh<data, model> grid(nax::host::devices(8), {4, 2});
  check_groups<data>(grid);
  check_groups<model>(grid);
  check_groups<data, model>(grid);
  CHECK(grid.comm<data>(5).describe() == "host group over {data} where model=1 (4 members), member 2");
  CHECK(grid.comm<model>(5).describe() == "host group over {model} where data=2 (2 members), member 1");
  CHECK(grid.comm<data, model>(5).rank() == 5);
  // Devices of one group share its communicator state; the handles are per device.
  CHECK(&grid.comm<data>(1) != &grid.comm<data>(3));

  nax::Mesh<data, model, stage> cube(nax::host::devices(12), {2, 3, 2});
  check_groups<data>(cube);
  check_groups<model>(cube);
  check_groups<stage>(cube);
  check_groups<data, model>(cube);
  check_groups<data, stage>(cube);
  check_groups<model, stage>(cube);
  check_groups<data, model, stage>(cube);
  CHECK(cube.comm<data, stage>(11).size() == 4);
  CHECK(cube.comm<data, stage>(11).rank() == 3);  // data=1, stage=1
}

TEST_CASE("communicators by axis mask, for generic code") {
  using Grid = nax::Mesh<data, model, stage>;
  static_assert(Grid::axis_mask_of<data>() == 1u);
  static_assert(Grid::axis_mask_of<model, stage>() == 6u);
  static_assert(Grid::axis_mask_of<data, model, stage>() == 7u);
  Grid grid(nax::host::devices(12), {2, 3, 2});
  CHECK(&grid.comm(Grid::axis_mask_of<data, stage>(), 7) == &grid.comm<data, stage>(7));
  CHECK(&grid.comm(2u, 7) == &grid.comm<model>(7));
  CHECK_THROWS_WITH_AS(grid.comm(0u, 7),
                       "Mesh<data, model, stage>::comm: axis mask 0 names no mesh axis or one "
                       "beyond the mesh's 3",
                       nax::argument_error);
  CHECK_THROWS_AS(grid.comm(8u, 7), nax::argument_error);
  grid.run([&](nax::mesh_device<data, model, stage>& device) {
    CHECK(&device.comm(5u) == &device.comm<data, stage>());
  });
}

TEST_CASE("copies of a mesh share its communicators") {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  auto copy = mesh;
  CHECK(&copy.comm<model>(3) == &mesh.comm<model>(3));
  CHECK(copy.local_devices() == std::vector<int>{0, 1, 2, 3});
  CHECK(copy.is_local(3));
  CHECK_FALSE(copy.is_local(4));
  CHECK_THROWS_AS(copy.comm<model>(4), nax::argument_error);
}

TEST_CASE("run() calls f once per device, concurrently, each with its own context") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  std::mutex mutex;
  std::vector<int> seen;
  std::set<std::thread::id> threads;
  mesh.run([&](nax::mesh_device<data, model>& device) {
    CHECK(device.coordinate<data>() == device.position() / 2);
    CHECK(device.coordinate<model>() == device.position() % 2);
    CHECK(device.coordinates() == mesh.coordinates(device.position()));
    CHECK(device.device_id() == device.position());
    CHECK(&device.comm<data>() == &mesh.comm<data>(device.position()));
    CHECK(&device.mesh() == &mesh);
    std::lock_guard lock(mutex);
    seen.push_back(device.position());
    threads.insert(std::this_thread::get_id());
  });
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(threads.size() == 8);
  CHECK(threads.count(std::this_thread::get_id()) == 0);

  // The device threads persist: a second run uses the same ones.
  std::set<std::thread::id> again;
  mesh.run([&](auto&) {
    std::lock_guard lock(mutex);
    again.insert(std::this_thread::get_id());
  });
  CHECK(again == threads);

  // All devices are inside run() at once (a barrier that needs all 8 completes).
  std::atomic<int> arrived{0};
  mesh_test::within_seconds(60, [&] {
    mesh.run([&](auto& device) {
      ++arrived;
      device.template comm<data, model>().barrier();
      CHECK(arrived.load() == 8);
    });
  });
}

TEST_CASE("each device thread gets an equal share of the OpenMP threads, at least one") {
#if defined(_OPENMP)
  int const budget = omp_get_max_threads();
  for (int n : {1, 2, 4, 8}) {
    nax::Mesh<data> mesh(nax::host::devices(n), {n});
    std::atomic<int> wrong{0};
    mesh.run([&](auto&) {
      if (omp_get_max_threads() != std::max(1, budget / n)) ++wrong;
    });
    CAPTURE(n);
    CHECK(wrong.load() == 0);
  }
#endif
}

namespace {
// A tape that is never used: only its address is compared.
struct unused_tape final : nax::detail::tape_interface {
  bool depends(const void*, std::size_t) const override { return false; }
  bool holds(const void*, std::size_t) const override { return false; }
  void adopt(void*, std::size_t) override {}
  void suspend(int) override {}
  [[noreturn]] void raw_access(const void*, std::size_t, bool, const char*) const override { throw 0; }
};
}  // namespace

TEST_CASE("a mesh of one host device runs f on the calling thread, which looks like a fresh device thread") {
  // One thread, one OpenMP team: a device thread with a team of its own beside the caller's made
  // libgomp stop spinning between regions (docs/toolchain.md).
  nax::Mesh<data> mesh(nax::host::devices(1), {1});
  const auto caller = std::this_thread::get_id();
  unused_tape tape;
  const nax::detail::axis_binding outer{nax::detail::axis_key<model>(), 3, 3, 0, nullptr};
  nax::detail::axis_environment().push_back(outer);
  nax::detail::active_tape = &tape;
#if defined(_OPENMP)
  const int budget = omp_get_max_threads();
  omp_set_num_threads(1);  // the caller's own setting; the device keeps the mesh's budget
#endif
  int calls = 0;
  mesh.run([&](auto& device) {
    ++calls;
    CHECK(device.position() == 0);
    CHECK(std::this_thread::get_id() == caller);
    CHECK(nax::detail::active_tape == nullptr);           // no recording from the caller's grad
    CHECK(nax::detail::axis_environment().empty());        // no bindings from the caller's maps
#if defined(_OPENMP)
    CHECK(omp_get_max_threads() == budget);
#endif
    CHECK_THROWS_WITH_AS(mesh.run([](auto&) {}),
                         "Mesh::run: called from inside a device of the same mesh (nested run would wait for itself)",
                         nax::device_error);
    nax::Mesh<data> other(nax::host::devices(1), {1});  // another mesh may run inside
    other.run([&](auto&) { ++calls; });
    CHECK(nax::detail::axis_environment().empty());
  });
  CHECK(calls == 2);
  // Restored after a normal return and after a throw.
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    CHECK(nax::detail::active_tape == &tape);
    REQUIRE(nax::detail::axis_environment().size() == 1);
    CHECK(nax::detail::axis_environment()[0].key == outer.key);
#if defined(_OPENMP)
    CHECK(omp_get_max_threads() == 1);
#endif
    if (round == 0)
      CHECK_THROWS_WITH_AS(mesh.run([](auto&) { throw nax::shape_error("from the device"); }), "from the device",
                           nax::shape_error);
  }
  nax::detail::active_tape = nullptr;
  nax::detail::axis_environment().clear();
#if defined(_OPENMP)
  omp_set_num_threads(budget);
#endif
}
