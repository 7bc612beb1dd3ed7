// Every collective of the host communicator, on groups of 1 to 12 devices over one or several
// mesh axes, for every dtype and reduction, against references computed directly from the
// inputs; aliasing cases; permutations and their errors; members that disagree.
#include <nax/mesh/mesh.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mesh_test_support.hpp"

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(stage);

using nax::detail::reduce_op;
using mesh_test::value;

namespace {

constexpr reduce_op all_ops[] = {reduce_op::sum, reduce_op::prod, reduce_op::max, reduce_op::min};

// Inputs per device: `blocks` blocks of `count` elements.
template <class T>
std::vector<mesh_test::buffer<T>> inputs(int devices, std::int64_t elements, int salt) {
  std::vector<mesh_test::buffer<T>> result(static_cast<std::size_t>(devices));
  for (int d = 0; d < devices; ++d) {
    result[static_cast<std::size_t>(d)] = mesh_test::buffer<T>(static_cast<std::size_t>(elements));
    for (std::int64_t i = 0; i < elements; ++i)
      result[static_cast<std::size_t>(d)][static_cast<std::size_t>(i)] = value<T>(d, i, salt);
  }
  return result;
}

template <class T>
void check_equal(mesh_test::buffer<T> const& actual, mesh_test::buffer<T> const& expected, int device,
                 std::string_view what) {
  REQUIRE(actual.size() == expected.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!mesh_test::same_value(actual[i], expected[i]) && wrong++ == 0) first = i;
  CAPTURE(device);
  CAPTURE(what);
  CAPTURE(first);
  CHECK(wrong == 0);
}

// All five data-moving collectives over the mesh axes As, with `count` elements per block.
template <class T, class... As, class Mesh>
void check_collectives(Mesh const& mesh, std::int64_t count) {
  int const devices = mesh.device_count();
  int const group = mesh.template comm<As...>(0).size();
  auto members = [&](int device) { return mesh_test::group_members<Mesh, As...>(mesh, device); };
  auto rank = [&](int device) { return mesh_test::rank_in_group<Mesh, As...>(mesh, device); };
  auto sz = [](std::int64_t n) { return static_cast<std::size_t>(n); };

  // all_reduce, every op
  for (reduce_op op : all_ops) {
    auto data = inputs<T>(devices, count, static_cast<int>(op));
    auto const original = data;
    mesh_test::within_seconds(120, [&] {
      mesh.run([&](auto& device) {
        device.template comm<As...>().all_reduce(data[sz(device.position())].data(), count, op);
      });
    });
    for (int d = 0; d < devices; ++d) {
      auto m = members(d);
      mesh_test::buffer<T> expected = original[sz(m[0])];
      for (std::size_t j = 1; j < m.size(); ++j)
        for (std::size_t i = 0; i < expected.size(); ++i)
          expected[i] = mesh_test::reference_combine(expected[i], original[sz(m[j])][i], op);
      check_equal(data[sz(d)], expected, d, "all_reduce " + std::string(nax::detail::reduce_op_name(op)));
    }
  }

  // reduce_scatter, every op
  for (reduce_op op : all_ops) {
    auto send = inputs<T>(devices, count * group, 10 + static_cast<int>(op));
    std::vector<mesh_test::buffer<T>> recv(sz(devices), mesh_test::buffer<T>(sz(count)));
    mesh_test::within_seconds(120, [&] {
      mesh.run([&](auto& device) {
        auto d = sz(device.position());
        device.template comm<As...>().reduce_scatter(send[d], recv[d], op);
      });
    });
    for (int d = 0; d < devices; ++d) {
      auto m = members(d);
      std::int64_t offset = rank(d) * count;
      mesh_test::buffer<T> expected(sz(count));
      for (std::int64_t i = 0; i < count; ++i) {
        T acc = send[sz(m[0])][sz(offset + i)];
        for (std::size_t j = 1; j < m.size(); ++j)
          acc = mesh_test::reference_combine(acc, send[sz(m[j])][sz(offset + i)], op);
        expected[sz(i)] = acc;
      }
      check_equal(recv[sz(d)], expected, d, "reduce_scatter " + std::string(nax::detail::reduce_op_name(op)));
    }
  }

  // all_gather
  {
    auto send = inputs<T>(devices, count, 20);
    std::vector<mesh_test::buffer<T>> recv(sz(devices), mesh_test::buffer<T>(sz(count * group)));
    mesh.run([&](auto& device) {
      auto d = sz(device.position());
      device.template comm<As...>().all_gather(send[d], recv[d]);
    });
    for (int d = 0; d < devices; ++d) {
      mesh_test::buffer<T> expected;
      for (int member : members(d)) expected.append(send[sz(member)].begin(), send[sz(member)].end());
      check_equal(recv[sz(d)], expected, d, "all_gather");
    }
  }

  // all_to_all
  {
    auto send = inputs<T>(devices, count * group, 30);
    std::vector<mesh_test::buffer<T>> recv(sz(devices), mesh_test::buffer<T>(sz(count * group)));
    mesh.run([&](auto& device) {
      auto d = sz(device.position());
      device.template comm<As...>().all_to_all(send[d], recv[d]);
    });
    for (int d = 0; d < devices; ++d) {
      mesh_test::buffer<T> expected;
      std::int64_t mine = rank(d);
      for (int member : members(d))
        expected.append(send[sz(member)].begin() + mine * count,
                        send[sz(member)].begin() + (mine + 1) * count);
      check_equal(recv[sz(d)], expected, d, "all_to_all");
    }
  }

  // permute: a cyclic shift (everyone receives), and a partial one (the rest receive zeros)
  std::vector<nax::detail::permutation> permutations(2);
  for (int r = 0; r < group; ++r) permutations[0].push_back({r, (r + 1) % group});
  permutations[1].push_back({0, group - 1});
  for (auto const& pairs : permutations) {
    auto send = inputs<T>(devices, count, 40);
    std::vector<mesh_test::buffer<T>> recv(sz(devices), mesh_test::buffer<T>(sz(count), value<T>(0, 1, 1)));
    mesh.run([&](auto& device) {
      auto d = sz(device.position());
      device.template comm<As...>().permute(send[d], recv[d], pairs);
    });
    for (int d = 0; d < devices; ++d) {
      int source = nax::detail::permutation_source(pairs, rank(d));
      mesh_test::buffer<T> expected = source < 0 ? mesh_test::buffer<T>(sz(count), T{}) : send[sz(members(d)[sz(source)])];
      check_equal(recv[sz(d)], expected, d, "permute");
    }
  }
}

template <class T>
void check_all_meshes(std::int64_t count) {
  CAPTURE(count);
  nax::Mesh<data> line(nax::host::devices(4), {4});
  check_collectives<T, data>(line, count);
  nax::Mesh<data, model> grid(nax::host::devices(8), {4, 2});
  check_collectives<T, data>(grid, count);
  check_collectives<T, model>(grid, count);
  check_collectives<T, data, model>(grid, count);
  nax::Mesh<data, model, stage> cube(nax::host::devices(12), {2, 3, 2});
  check_collectives<T, model>(cube, count);
  check_collectives<T, data, stage>(cube, count);
  nax::Mesh<data> single(nax::host::devices(1), {1});
  check_collectives<T, data>(single, count);
}

}  // namespace

TEST_CASE_TEMPLATE("host collectives match the reference for every dtype and reduction", T, float,
                   double, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                   std::uint16_t, std::uint32_t, std::uint64_t, bool) {
  for (std::int64_t count : {0, 1, 5, 17, 1000}) check_all_meshes<T>(count);
}

TEST_CASE("host collectives over large buffers (slices that are not cache-line multiples)") {
  nax::Mesh<data, model> grid(nax::host::devices(4), {2, 2});
  check_collectives<float, data, model>(grid, 100003);
  check_collectives<double, model>(grid, 65536 + 3);
  check_collectives<std::int32_t, data, model>(grid, (1 << 18) + 11);
}

TEST_CASE("max and min propagate NaN; sums of floats are in member order on every member") {
  nax::Mesh<data> mesh(nax::host::devices(3), {3});
  std::vector<std::vector<float>> data(3, std::vector<float>{1.f, 2.f, 3.f});
  data[1][1] = NAN;
  data[2][0] = NAN;
  auto maxima = data, minima = data;
  mesh.run([&](auto& device) {
    auto d = static_cast<std::size_t>(device.position());
    device.template comm<::data>().all_reduce(maxima[d], reduce_op::max);
    device.template comm<::data>().all_reduce(minima[d], reduce_op::min);
  });
  for (std::size_t d = 0; d < 3; ++d) {
    CHECK(std::isnan(maxima[d][0]));
    CHECK(std::isnan(maxima[d][1]));
    CHECK(maxima[d][2] == 3.f);
    CHECK(std::isnan(minima[d][0]));
    CHECK(std::isnan(minima[d][1]));
    CHECK(minima[d][2] == 3.f);
  }

  // 1e8 + 1 - 1e8 in float depends on the order: every member gets the member-order result.
  std::vector<std::vector<float>> sums{{1e8f}, {1.f}, {-1e8f}};
  mesh.run([&](auto& device) {
    device.template comm<::data>().all_reduce(sums[static_cast<std::size_t>(device.position())]);
  });
  float const expected = (1e8f + 1.f) + -1e8f;
  for (auto const& sum : sums) CHECK(sum[0] == expected);
}

TEST_CASE("all_gather from recv's own block and reduce_scatter into send's own block") {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  std::int64_t const count = 1001;
  std::vector<std::vector<double>> buffers(4, std::vector<double>(4 * count));
  for (int d = 0; d < 4; ++d)
    for (std::int64_t i = 0; i < count; ++i)
      buffers[static_cast<std::size_t>(d)][static_cast<std::size_t>(d * count + i)] = value<double>(d, i);
  mesh.run([&](auto& device) {
    double* buffer = buffers[static_cast<std::size_t>(device.position())].data();
    device.template comm<data>().all_gather(buffer + device.position() * count, buffer, count);
  });
  for (int d = 0; d < 4; ++d)
    for (int j = 0; j < 4; ++j)
      for (std::int64_t i = 0; i < count; i += 97)
        CHECK(buffers[static_cast<std::size_t>(d)][static_cast<std::size_t>(j * count + i)] == value<double>(j, i));

  auto send = inputs<double>(4, 4 * count, 3);
  auto const original = send;
  mesh.run([&](auto& device) {
    double* buffer = send[static_cast<std::size_t>(device.position())].data();
    device.template comm<data>().reduce_scatter(buffer, buffer + device.position() * count, count);
  });
  for (int d = 0; d < 4; ++d)
    for (std::int64_t i = 0; i < count; i += 89) {
      double expected = 0;
      for (int j = 0; j < 4; ++j) expected += original[static_cast<std::size_t>(j)][static_cast<std::size_t>(d * count + i)];
      CHECK(send[static_cast<std::size_t>(d)][static_cast<std::size_t>(d * count + i)] == expected);
    }
}

TEST_CASE("invalid permutations raise argument_error naming the pair, on every member") {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  auto attempt = [&](nax::detail::permutation const& pairs) {
    std::vector<std::string> messages(4);
    mesh_test::within_seconds(60, [&] {
      mesh.run([&](auto& device) {
        std::vector<float> send(3, 1.f), recv(3);
        try {
          device.template comm<data>().permute(send, recv, pairs);
        } catch (nax::argument_error const& error) {
          messages[static_cast<std::size_t>(device.position())] = error.what();
        }
      });
    });
    for (auto const& message : messages) CHECK(message == messages[0]);
    return messages[0];
  };
  CHECK(attempt({{0, 1}, {0, 2}}) ==
        "permute on host group over {data} (4 members): permutation pairs (0, 1) and (0, 2) have "
        "the same source 0");
  CHECK(attempt({{0, 2}, {1, 2}}) ==
        "permute on host group over {data} (4 members): permutation pairs (0, 2) and (1, 2) have "
        "the same destination 2");
  CHECK(attempt({{0, 1}, {3, 4}}) ==
        "permute on host group over {data} (4 members): permutation pair (3, 4) names member 4, "
        "outside [0, 4) of a group of 4");
  CHECK(attempt({{-1, 0}}).find("pair (-1, 0) names member -1") != std::string::npos);
  // The communicator still works afterwards.
  CHECK(attempt({{0, 1}, {1, 0}, {2, 2}}).empty());

  // run() rethrows it when nobody catches.
  CHECK_THROWS_AS(mesh.run([](auto& device) {
                    std::vector<int> send(2), recv(2);
                    device.template comm<data>().permute(send, recv, {{0, 0}, {1, 0}});
                  }),
                  nax::argument_error);
}

TEST_CASE("members that disagree raise device_error on every member, and nobody hangs") {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  auto messages_of = [&](auto body) {
    std::vector<std::string> messages(4);
    mesh_test::within_seconds(60, [&] {
      mesh.run([&](auto& device) {
        try {
          body(device);
        } catch (nax::device_error const& error) {
          messages[static_cast<std::size_t>(device.position())] = error.what();
        }
      });
    });
    return messages;
  };
  auto counts = messages_of([](auto& device) {
    std::vector<float> buffer(device.position() == 2 ? 3 : 4);
    device.template comm<data, model>().all_reduce(buffer);
  });
  for (auto const& message : counts)
    CHECK(message ==
          "all_reduce: host group over {data, model} (4 members): members disagree on the count: "
          "member 0 passes 4, member 2 passes 3");

  auto calls = messages_of([](auto& device) {
    std::vector<float> buffer(4), gathered(8);
    if (device.template coordinate<data>() == 0)
      device.template comm<data>().all_reduce(buffer);
    else
      device.template comm<data>().all_gather(buffer, gathered);
  });
  for (auto const& message : calls) CHECK(message.find("members disagree on the collective: member 0 calls all_reduce, member 1 calls all_gather") != std::string::npos);

  auto types = messages_of([](auto& device) {
    std::vector<float> f(4);
    std::vector<std::int32_t> i(4);
    if (device.position() == 1)
      device.template comm<model>().all_reduce(i);
    else
      device.template comm<model>().all_reduce(f);
  });
  CHECK(types[0] == "all_reduce: host group over {model} where data=0 (2 members): members "
                    "disagree on the dtype: member 0 passes float32, member 1 passes int32");
  CHECK(types[1] == types[0]);
  CHECK(types[2].empty());  // the other model group agreed
  CHECK(types[3].empty());

  auto ops = messages_of([](auto& device) {
    std::vector<double> x(4);
    device.template comm<model>().all_reduce(x, device.position() == 3 ? reduce_op::max : reduce_op::sum);
  });
  CHECK(ops[3].find("disagree on the reduction: member 0 passes sum, member 1 passes max") != std::string::npos);

  auto permutations = messages_of([](auto& device) {
    std::vector<double> x(4), y(4);
    nax::detail::permutation pairs{{0, 1}};
    if (device.position() == 3) pairs = {{1, 0}};
    device.template comm<model>().permute(x, y, pairs);
  });
  CHECK(permutations[2].find("disagree on the permutation: member 0 passes [(0, 1)], member 1 passes [(1, 0)]") != std::string::npos);

  // A negative count is an argument_error, the same on all members.
  CHECK_THROWS_WITH_AS(mesh.run([](auto& device) {
                         float x = 0;
                         device.template comm<data>().all_reduce(&x, -1);
                       }),
                       doctest::Contains("negative count -1"), nax::argument_error);

  // Afterwards the same communicators work.
  std::vector<std::vector<float>> values(4, std::vector<float>{1.f, 2.f});
  mesh.run([&](auto& device) {
    device.template comm<data, model>().all_reduce(values[static_cast<std::size_t>(device.position())]);
  });
  for (auto const& x : values) CHECK(x == std::vector<float>{4.f, 8.f});
}

TEST_CASE("typed wrappers check buffer sizes") {
  nax::Mesh<data> mesh(nax::host::devices(1), {1});
  auto& comm = mesh.comm<data>(0);
  std::vector<float> one(3), two(6);
  CHECK_THROWS_WITH_AS(comm.all_gather(one, two),
                       "all_gather: recv holds 6 elements, expected size() * send.size() = 3",
                       nax::argument_error);
  CHECK_THROWS_WITH_AS(comm.reduce_scatter(two, one),
                       "reduce_scatter: send holds 6 elements, expected size() * recv.size() = 3",
                       nax::argument_error);
  CHECK_THROWS_AS(comm.all_to_all(one, two), nax::argument_error);
  CHECK_THROWS_AS(comm.permute(one, two, {}), nax::argument_error);
  // One member: everything is a copy (or zeros, for a permutation without pairs).
  std::vector<float> x{1, 2, 3}, y(3, 9.f);
  comm.permute(x, y, {});
  CHECK(y == std::vector<float>{0, 0, 0});
  comm.permute(x, y, {{0, 0}});
  CHECK(y == x);
  comm.all_reduce(x, reduce_op::prod);
  CHECK(x == std::vector<float>{1, 2, 3});
  comm.barrier();
}

TEST_CASE("the untyped interface takes dtype and op at run time; dtype_of maps C++ types") {
  using nax::detail::dtype;
  using nax::detail::dtype_of;
  static_assert(dtype_of<float> == dtype::f32 && dtype_of<double> == dtype::f64);
  static_assert(dtype_of<std::int8_t> == dtype::i8 && dtype_of<std::uint8_t> == dtype::u8);
  static_assert(dtype_of<std::int32_t> == dtype::i32 && dtype_of<std::uint64_t> == dtype::u64);
  static_assert(dtype_of<long long> == dtype::i64 && dtype_of<bool> == dtype::boolean);
  static_assert(dtype_of<const float> == dtype::f32);
  static_assert(nax::detail::dtype_size(dtype::f64) == 8 && nax::detail::dtype_size(dtype::i16) == 2);
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  std::vector<std::vector<std::int64_t>> data{{5, -7}, {3, 4}};
  mesh.run([&](auto& device) {
    void* buffer = data[static_cast<std::size_t>(device.position())].data();
    device.template comm<::data>().all_reduce(buffer, 2, dtype::i64, reduce_op::min);
  });
  CHECK(data[0] == std::vector<std::int64_t>{3, -7});
  CHECK(data[1] == data[0]);
}

TEST_CASE("communicators are reused across many calls and many runs") {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  auto* const first = &mesh.comm<data>(0);
  std::vector<std::vector<std::int64_t>> totals(4, std::vector<std::int64_t>(1, 0));
  mesh_test::within_seconds(120, [&] {
    for (int run = 0; run < 20; ++run) {
      mesh.run([&](auto& device) {
        auto& comm = device.template comm<data>();
        auto& both = device.template comm<data, model>();
        for (int call = 0; call < 50; ++call) {
          std::int64_t x = device.position() + call;
          comm.all_reduce(&x, 1);
          both.all_reduce(&x, 1, reduce_op::max);
          totals[static_cast<std::size_t>(device.position())][0] += x;
          if (call % 10 == 0) both.barrier();
        }
      });
    }
  });
  // max over devices of (sum over the data column) = column of model=1: (1 + c) + (3 + c).
  std::int64_t expected = 0;
  for (int call = 0; call < 50; ++call) expected += 4 + 2 * call;
  for (auto const& total : totals) CHECK(total[0] == 20 * expected);
  CHECK(&mesh.comm<data>(0) == first);
}

TEST_CASE("a host_group works on its own, with threads of the caller's choosing") {
  nax::detail::host_group group(3, "test group");
  std::vector<std::vector<int>> gathered(3, std::vector<int>(3));
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r)
    threads.emplace_back([&, r] {
      int mine = 10 * r;
      group.member(r).all_gather(&mine, gathered[static_cast<std::size_t>(r)].data(), 1);
    });
  for (auto& thread : threads) thread.join();
  for (auto const& g : gathered) CHECK(g == std::vector<int>{0, 10, 20});
  CHECK(group.member(1).describe() == "test group (3 members), member 1");
  CHECK_THROWS_AS(nax::detail::host_group(0), nax::argument_error);
  CHECK_THROWS_WITH_AS(nax::detail::host_group(-3, "g"), "g: a group needs at least one member, got -3",
                       nax::argument_error);
}
