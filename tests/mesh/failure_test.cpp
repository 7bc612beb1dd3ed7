// A device that fails inside Mesh::run: run() rethrows its exception after every device has
// stopped, devices waiting for it in a collective are released (never left blocked), and the
// mesh's communicators keep working for the next run.
#include <nax/mesh/mesh.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mesh_test_support.hpp"

NAX_AXIS(data);
NAX_AXIS(model);

namespace {

// After a failure the mesh must compute correctly again.
template <class Mesh>
void check_still_works(Mesh const& mesh) {
  std::vector<std::vector<int>> values(static_cast<std::size_t>(mesh.device_count()), std::vector<int>{1});
  mesh_test::within_seconds(60, [&] {
    mesh.run([&](auto& device) {
      auto& comm = device.template comm<data>();
      comm.all_reduce(values[static_cast<std::size_t>(device.position())]);
      comm.barrier();
    });
  });
  for (auto const& v : values) CHECK(v[0] == mesh.template size<data>());
}

}  // namespace

TEST_CASE("a device that throws before a collective: run() rethrows its exception, nobody hangs") {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  std::atomic<int> released{0};
  mesh_test::within_seconds(60, [&] {
    CHECK_THROWS_WITH_AS(mesh.run([&](auto& device) {
                           if (device.position() == 2) throw std::runtime_error("boom on 2");
                           float x = 1;
                           try {
                             device.template comm<data>().all_reduce(&x, 1);
                           } catch (nax::device_error const& error) {
                             CHECK(std::string(error.what()) ==
                                   "all_reduce: another device failed: device 2 threw: boom on 2");
                             ++released;
                             throw;
                           }
                         }),
                         "boom on 2", std::runtime_error);
  });
  CHECK(released.load() == 3);
  check_still_works(mesh);
}

TEST_CASE("a device that throws after the others entered a collective releases them") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  for (int failing : {0, 5, 7}) {
    CAPTURE(failing);
    mesh_test::within_seconds(60, [&] {
      CHECK_THROWS_WITH_AS(mesh.run([&](auto& device) {
                             std::vector<double> x(1000, 1.0);
                             for (int step = 0; step < 20; ++step) {
                               if (device.position() == failing && step == 7) {
                                 // Let the others reach the collective and wait there.
                                 std::this_thread::sleep_for(std::chrono::milliseconds(50));
                                 throw nax::shape_error("bad extent on device " + std::to_string(failing));
                               }
                               device.template comm<data>().all_reduce(x);
                               device.template comm<data, model>().barrier();
                             }
                           }),
                           ("bad extent on device " + std::to_string(failing)).c_str(), nax::shape_error);
    });
    check_still_works(mesh);
  }
}

TEST_CASE("several failing devices: run() rethrows the lowest one's original exception") {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  mesh_test::within_seconds(60, [&] {
    CHECK_THROWS_WITH_AS(mesh.run([](auto& device) {
                           if (device.position() >= 1) throw std::logic_error("failed " + std::to_string(device.position()));
                           device.template comm<data>().barrier();
                         }),
                         "failed 1", std::logic_error);
  });
  // A non-standard exception type is rethrown as it is.
  mesh_test::within_seconds(60, [&] {
    CHECK_THROWS_AS(mesh.run([](auto& device) {
                      if (device.position() == 3) throw 42;
                      device.template comm<data>().barrier();
                    }),
                    int);
  });
  check_still_works(mesh);
}

TEST_CASE("a device that returns without making a collective its group waits in: device_error") {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  mesh_test::within_seconds(60, [&] {
    CHECK_THROWS_WITH_AS(mesh.run([](auto& device) {
                           if (device.position() == 1) return;
                           device.template comm<data>().barrier();
                         }),
                         "barrier on host group over {data}: a member returned from its device "
                         "function without making this call (the devices' sequences of collective "
                         "calls do not match)",
                         nax::device_error);
  });
  // An extra call on one device only.
  mesh_test::within_seconds(60, [&] {
    CHECK_THROWS_AS(mesh.run([](auto& device) {
                      std::vector<float> x(3);
                      device.template comm<data>().all_reduce(x);
                      if (device.position() == 0) device.template comm<data>().all_reduce(x);
                    }),
                    nax::device_error);
  });
  check_still_works(mesh);
}

TEST_CASE("run() from inside a device of the same mesh is refused") {
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  mesh_test::within_seconds(60, [&] {
    CHECK_THROWS_WITH_AS(mesh.run([&](auto&) { mesh.run([](auto&) {}); }),
                         "Mesh::run: called from inside a device of the same mesh (nested run "
                         "would wait for itself)",
                         nax::device_error);
  });
  // Another mesh may run from inside a device.
  nax::Mesh<data> inner(nax::host::devices(2), {2});
  std::atomic<int> calls{0};
  mesh_test::within_seconds(60, [&] {
    nax::Mesh<data> solo(nax::host::devices(1), {1});
    solo.run([&](auto&) { inner.run([&](auto&) { ++calls; }); });
  });
  CHECK(calls.load() == 2);
  check_still_works(mesh);
}

TEST_CASE("concurrent run() calls on one mesh take turns") {
  nax::Mesh<data> mesh(nax::host::devices(3), {3});
  std::atomic<int> total{0};
  mesh_test::within_seconds(60, [&] {
    std::vector<std::thread> callers;
    for (int c = 0; c < 3; ++c)
      callers.emplace_back([&] {
        for (int i = 0; i < 20; ++i)
          mesh.run([&](auto& device) {
            int x = 1;
            device.template comm<data>().all_reduce(&x, 1);
            total += x;
          });
      });
    for (auto& caller : callers) caller.join();
  });
  CHECK(total.load() == 3 * 20 * 3 * 3);
}
