// Meshes over MPI ranks and the MPI communicator, on 4 ranks (ctest -R mpi runs
// mpirun -np 4): device lists, groups from MPI_Comm_split, every collective for several dtypes
// and reductions against references each rank computes from every device's inputs, argument
// agreement, permutation errors, reuse. Every test case is collective: all ranks run it.
#include <nax/mpi.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../mesh/mesh_test_support.hpp"

NAX_AXIS(data);
NAX_AXIS(model);

using nax::detail::reduce_op;
using mesh_test::buffer;
using mesh_test::value;

namespace {

constexpr reduce_op all_ops[] = {reduce_op::sum, reduce_op::prod, reduce_op::max, reduce_op::min};

std::size_t sz(std::int64_t n) { return static_cast<std::size_t>(n); }

template <class T>
buffer<T> input(int device, std::int64_t elements, int salt) {
  buffer<T> result(sz(elements));
  for (std::int64_t i = 0; i < elements; ++i) result[sz(i)] = value<T>(device, i, salt);
  return result;
}

template <class T>
void check_equal(buffer<T> const& actual, buffer<T> const& expected, std::string_view what) {
  REQUIRE(actual.size() == expected.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!mesh_test::same_value(actual[i], expected[i]) && wrong++ == 0) first = i;
  CAPTURE(what);
  CAPTURE(first);
  CHECK(wrong == 0);
}

// Every collective over the mesh axes As, on this rank's device.
template <class T, class... As, class Mesh>
void check_collectives(Mesh const& mesh, std::int64_t count) {
  CAPTURE(count);
  mesh.run([&](auto& device) {
    auto& comm = device.template comm<As...>();
    int const me = device.position();
    auto const members = mesh_test::group_members<Mesh, As...>(mesh, me);
    int const group = static_cast<int>(members.size());
    int const rank = mesh_test::rank_in_group<Mesh, As...>(mesh, me);
    REQUIRE(comm.size() == group);
    REQUIRE(comm.rank() == rank);

    for (reduce_op op : all_ops) {
      auto data = input<T>(me, count, static_cast<int>(op));
      comm.all_reduce(data, op);
      auto expected = input<T>(members[0], count, static_cast<int>(op));
      for (std::size_t j = 1; j < members.size(); ++j) {
        auto other = input<T>(members[j], count, static_cast<int>(op));
        for (std::size_t i = 0; i < expected.size(); ++i)
          expected[i] = mesh_test::reference_combine(expected[i], other[i], op);
      }
      // Integer and bool results are exact; floating sums may be added in another order.
      if constexpr (std::is_floating_point_v<T>) {
        for (std::size_t i = 0; i < expected.size(); ++i) {
          CAPTURE(i);
          if (std::isnan(expected[i])) CHECK(std::isnan(data[i]));
          else CHECK(data[i] == doctest::Approx(expected[i]).epsilon(1e-5));
        }
      } else {
        check_equal(data, expected, "all_reduce " + std::string(nax::detail::reduce_op_name(op)));
      }
    }

    for (reduce_op op : all_ops) {
      // Floating sums and products may be combined in another order by MPI: all_reduce covers them.
      if constexpr (std::is_floating_point_v<T>)
        if (op == reduce_op::sum || op == reduce_op::prod) continue;
      auto send = input<T>(me, count * group, 10 + static_cast<int>(op));
      buffer<T> recv(sz(count));
      comm.reduce_scatter(send, recv, op);
      buffer<T> expected(sz(count));
      for (std::int64_t i = 0; i < count; ++i) {
        T acc = value<T>(members[0], rank * count + i, 10 + static_cast<int>(op));
        for (std::size_t j = 1; j < members.size(); ++j)
          acc = mesh_test::reference_combine(acc, value<T>(members[j], rank * count + i, 10 + static_cast<int>(op)), op);
        expected[sz(i)] = acc;
      }
      check_equal(recv, expected, "reduce_scatter " + std::string(nax::detail::reduce_op_name(op)));
    }

    {
      auto send = input<T>(me, count, 20);
      buffer<T> recv(sz(count * group));
      comm.all_gather(send, recv);
      buffer<T> expected;
      for (int member : members) {
        auto block = input<T>(member, count, 20);
        expected.append(block.begin(), block.end());
      }
      check_equal(recv, expected, "all_gather");
    }

    {
      auto send = input<T>(me, count * group, 30);
      buffer<T> recv(sz(count * group));
      comm.all_to_all(send, recv);
      buffer<T> expected;
      for (int member : members) {
        auto theirs = input<T>(member, count * group, 30);
        expected.append(theirs.begin() + rank * count, theirs.begin() + (rank + 1) * count);
      }
      check_equal(recv, expected, "all_to_all");
    }

    std::vector<nax::detail::permutation> permutations(2);
    for (int r = 0; r < group; ++r) permutations[0].push_back({r, (r + 1) % group});
    permutations[1].push_back({0, group - 1});
    for (auto const& pairs : permutations) {
      auto send = input<T>(me, count, 40);
      buffer<T> recv(sz(count), value<T>(0, 1, 1));
      comm.permute(send, recv, pairs);
      int source = nax::detail::permutation_source(pairs, rank);
      buffer<T> expected = source < 0 ? buffer<T>(sz(count), T{}) : input<T>(members[sz(source)], count, 40);
      check_equal(recv, expected, "permute");
    }
    comm.barrier();
  });
}

template <class T>
void check_meshes() {
  nax::Mesh<data> line(nax::mpi::world(), {4});
  nax::Mesh<data, model> grid(nax::mpi::world(), {2, 2});
  for (std::int64_t count : {0, 1, 7, 1000}) {
    check_collectives<T, data>(line, count);
    check_collectives<T, data>(grid, count);
    check_collectives<T, model>(grid, count);
    check_collectives<T, data, model>(grid, count);
  }
}

}  // namespace

TEST_CASE("mpi::world() lists one device per rank; this process runs its own") {
  REQUIRE(nax::mpi::world_size() == 4);
  auto world = nax::mpi::world();
  CHECK(world.kind() == nax::device_kind::mpi);
  CHECK(world.count() == 4);
  CHECK(world.ids() == std::vector<int>{0, 1, 2, 3});
  CHECK(world.describe() == "4 mpi devices");

  int const rank = nax::mpi::world_rank();
  nax::Mesh<data> mesh(world, {4});
  CHECK(mesh.local_devices() == std::vector<int>{rank});
  CHECK(mesh.is_local(rank));
  CHECK_FALSE(mesh.is_local((rank + 1) % 4));
  CHECK_THROWS_WITH_AS(mesh.comm<data>((rank + 1) % 4),
                       ("Mesh<data>::comm: device " + std::to_string((rank + 1) % 4) +
                        " is not run by this process (its devices: {" + std::to_string(rank) + "})")
                           .c_str(),
                       nax::argument_error);
  int calls = 0;
  mesh.run([&](auto& device) {
    ++calls;
    CHECK(device.position() == rank);
    CHECK(device.device_id() == rank);
    CHECK(device.template coordinate<data>() == rank);
  });
  CHECK(calls == 1);
  CHECK_THROWS_WITH_AS((nax::Mesh<data, model>(world, {3, 2})),
                       "Mesh<data, model>: the shape (data=3, model=2) holds 6 devices, but the "
                       "device list has 4 mpi devices",
                       nax::argument_error);
}

TEST_CASE("MPI groups: ranks and members follow the mesh coordinates") {
  nax::Mesh<data, model> grid(nax::mpi::world(), {2, 2});
  int const me = nax::mpi::world_rank();
  using Grid = decltype(grid);
  CHECK(grid.comm<data>(me).size() == 2);
  CHECK(grid.comm<data>(me).rank() == me / 2);
  CHECK(grid.comm<model>(me).rank() == me % 2);
  CHECK(grid.comm<data, model>(me).rank() == me);
  CHECK(grid.comm<data, model>(me).size() == 4);
  CHECK(&grid.comm<data>(me) == &grid.comm<data>(me));
  CHECK(grid.comm<data>(me).rank() == mesh_test::rank_in_group<Grid, data>(grid, me));
  CHECK(grid.comm<model>(me).describe() ==
        "MPI group over {model} where data=" + std::to_string(me / 2) + " (2 members), member " +
            std::to_string(me % 2));
  // Which devices share this rank's group: gather the world ranks.
  int world_rank = me;
  std::vector<int> gathered(2);
  grid.comm<model>(me).all_gather(&world_rank, gathered.data(), 1);
  CHECK(gathered == mesh_test::group_members<Grid, model>(grid, me));
}

TEST_CASE_TEMPLATE("MPI collectives match the reference", T, float, double, std::int8_t,
                   std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                   std::uint32_t, std::uint64_t, bool) {
  check_meshes<T>();
}

TEST_CASE("MPI all_reduce of a large buffer, and floating max/min propagate NaN") {
  nax::Mesh<data> mesh(nax::mpi::world(), {4});
  mesh.run([&](auto& device) {
    auto& comm = device.template comm<data>();
    std::int64_t const count = (1 << 20) + 3;
    std::vector<float> x(sz(count));
    for (std::int64_t i = 0; i < count; ++i) x[sz(i)] = static_cast<float>((i % 7) * (device.position() + 1));
    comm.all_reduce(x);
    std::size_t wrong = 0;
    for (std::int64_t i = 0; i < count; ++i)
      if (x[sz(i)] != static_cast<float>((i % 7) * 10)) ++wrong;
    CHECK(wrong == 0);

    std::vector<double> y{1.0, 2.0, static_cast<double>(device.position())};
    if (device.position() == 2) y[1] = NAN;
    auto z = y;
    comm.all_reduce(y, reduce_op::max);
    comm.all_reduce(z, reduce_op::min);
    CHECK(y[0] == 1.0);
    CHECK(std::isnan(y[1]));
    CHECK(y[2] == 3.0);
    CHECK(std::isnan(z[1]));
    CHECK(z[2] == 0.0);
  });
}

TEST_CASE("MPI all_gather from recv's own block; reduce_scatter into send's own block") {
  nax::Mesh<data> mesh(nax::mpi::world(), {4});
  mesh.run([&](auto& device) {
    auto& comm = device.template comm<data>();
    int const me = device.position();
    std::int64_t const count = 5;
    std::vector<std::int32_t> gathered(4 * count, -1);
    for (std::int64_t i = 0; i < count; ++i) gathered[sz(me * count + i)] = value<std::int32_t>(me, i);
    comm.all_gather(gathered.data() + me * count, gathered.data(), count);
    for (int j = 0; j < 4; ++j)
      for (std::int64_t i = 0; i < count; ++i) CHECK(gathered[sz(j * count + i)] == value<std::int32_t>(j, i));

    std::vector<std::int32_t> send(4 * count);
    for (std::int64_t i = 0; i < 4 * count; ++i) send[sz(i)] = value<std::int32_t>(me, i, 2);
    comm.reduce_scatter(send.data(), send.data() + me * count, count);
    for (std::int64_t i = 0; i < count; ++i) {
      std::int32_t expected = 0;
      for (int j = 0; j < 4; ++j) expected += value<std::int32_t>(j, me * count + i, 2);
      CHECK(send[sz(me * count + i)] == expected);
    }
  });
}

TEST_CASE("MPI members that disagree raise device_error on every rank; bad permutations argument_error") {
  nax::Mesh<data, model> grid(nax::mpi::world(), {2, 2});
  grid.run([&](auto& device) {
    int const me = device.position();
    auto& all = device.template comm<data, model>();
    std::vector<float> x(me == 3 ? 5 : 4);
    CHECK_THROWS_WITH_AS(all.all_reduce(x),
                         doctest::Contains("all_reduce: MPI group over {data, model} (4 members): "
                                           "members disagree on the count: counts range from 4 to 5"),
                         nax::device_error);
    std::vector<float> y(4), gathered(8);
    auto& column = device.template comm<data>();
    if (me == 0)
      CHECK_THROWS_WITH_AS(column.all_reduce(y), doctest::Contains("disagree on the collective"), nax::device_error);
    else if (me == 2)
      CHECK_THROWS_AS(column.all_gather(y, gathered), nax::device_error);
    else
      column.all_reduce(y);  // the other column agrees
    std::vector<double> send(3), recv(3);
    CHECK_THROWS_WITH_AS(all.permute(send, recv, {{0, 1}, {2, 1}}),
                         "permute on MPI group over {data, model}: permutation pairs (0, 1) and (2, 1) "
                         "have the same destination 1",
                         nax::argument_error);
    CHECK_THROWS_WITH_AS(all.permute(send, recv, {{0, 4}}),
                         doctest::Contains("pair (0, 4) names member 4, outside [0, 4)"),
                         nax::argument_error);
    // The communicators still work.
    float one = 1.f;
    all.all_reduce(&one, 1);
    CHECK(one == 4.f);
  });
}

TEST_CASE("MPI communicators are reused across many calls") {
  nax::Mesh<data, model> grid(nax::mpi::world(), {2, 2});
  std::int64_t total = 0;
  for (int round = 0; round < 5; ++round) {
    grid.run([&](auto& device) {
      for (int call = 0; call < 200; ++call) {
        std::int64_t x = device.position() + call;
        device.template comm<data>().all_reduce(&x, 1);
        device.template comm<data, model>().all_reduce(&x, 1, reduce_op::max);
        total += x;
      }
    });
  }
  std::int64_t expected = 0;
  for (int call = 0; call < 200; ++call) expected += 4 + 2 * call;
  CHECK(total == 5 * expected);
}
