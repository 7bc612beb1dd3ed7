// pmap on host devices: JAX's pmap collective cases on 4 devices (pmean, psum / pmax / pmin,
// all_gather untiled and tiled, psum_scatter, ppermute including the 3-device case, all_to_all,
// axis_index, axis_size) and the run-time errors (pmap extent, bad permutations, rethrown from
// the devices); and the data-moving collectives over a mesh axis holding several members per
// device (1, 2, 4, 8 devices), which must equal vmap.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../support/reference.hpp"

namespace {

NAX_AXIS(i);
NAX_AXIS(c);
NAX_AXIS(s);
NAX_AXIS(g);
NAX_AXIS(n);
NAX_AXIS(dev);
NAX_AXIS(data);
NAX_AXIS(batch);

using nax_test::at;
using nax_test::index_map;
using nax_test::index_t;

constexpr int N = 4;

nax::Mesh<dev> mesh4() { return nax::Mesh<dev>(nax::host::devices(N), {N}); }

using nax_test::check_same;

}  // namespace

// ---- pmap: JAX's pmap_test cases on 4 host devices --------------------------------------------

TEST_CASE("pmap: x - pmean(x) equals x - x.mean(0)") {
  nax_test::random_source rng(1);
  auto x = nax_test::random_array<float, i, c>(rng, {N, 4});
  auto y = nax::pmap<i>([](const auto& v) { return v - nax::pmean<i>(v); }, mesh4())(x);
  static_assert(std::is_same_v<decltype(y), nax::Array<float, i, c>>);
  nax_test::check_all(y, [&](const index_map& idx) {
    double mean = 0;
    for (index_t m = 0; m < N; ++m) mean += x(m, idx.at("c"));
    return double(at(x, idx)) - mean / N;
  }, 1e-5, 1e-5);
}

TEST_CASE("pmap: psum, pmax, pmin, axis_index, axis_size") {
  nax_test::random_source rng(2);
  auto x = nax_test::random_array<double, c, i>(rng, {3, N});
  auto [sum, mx, mn, idx, size] = nax::pmap<i>([](const auto& v) {
    return nax::tuple(nax::psum<i>(v), nax::pmax<i>(v) - v, nax::pmin<i>(v), nax::axis_index<i>(), nax::axis_size<i>());
  }, mesh4())(x);
  // Outputs that do not vary over i are replicated (no i axis); the others get i first.
  static_assert(std::is_same_v<decltype(sum), nax::Array<double, c>>);
  static_assert(std::is_same_v<decltype(mx), nax::Array<double, i, c>>);
  static_assert(std::is_same_v<decltype(idx), nax::Array<std::int32_t, i>>);
  static_assert(std::is_same_v<decltype(size), nax::Array<std::int32_t>>);
  nax_test::check_all(sum, [&](const index_map& m) { return x(m.at("c"), 0) + x(m.at("c"), 1) + x(m.at("c"), 2) + x(m.at("c"), 3); });
  nax_test::check_all(mx, [&](const index_map& m) {
    double best = x(m.at("c"), 0);
    for (index_t d = 1; d < N; ++d) best = std::max(best, x(m.at("c"), d));
    return best - at(x, m);
  });
  nax_test::check_all(mn, [&](const index_map& m) {
    double least = x(m.at("c"), 0);
    for (index_t d = 1; d < N; ++d) least = std::min(least, x(m.at("c"), d));
    return least;
  });
  for (index_t d = 0; d < N; ++d) CHECK(idx(d) == d);
  CHECK(size.item() == N);
}

TEST_CASE("pmap: all_gather of arange(4) gives every device [0, 1, 2, 3]; tiled gives 4N elements") {
  auto x = nax::eval(nax::arange<float, i>(N));
  auto y = nax::pmap<i>([](const auto& v) { return nax::all_gather<i, g>(v); }, mesh4())(x);
  static_assert(std::is_same_v<decltype(y), nax::Array<float, g>>);  // the same on every device
  REQUIRE(y.extent<g>() == N);
  for (index_t m = 0; m < N; ++m) CHECK(y(m) == float(m));

  // Every device's copy, seen through a mapped output: the gathered value plus 0 * index.
  auto per_device = nax::pmap<i>([](const auto& v) {
    return nax::all_gather<i, g>(v) + nax::cast<float>(nax::axis_index<i>()) * 0.f;
  }, mesh4())(x);
  static_assert(std::is_same_v<decltype(per_device), nax::Array<float, i, g>>);
  for (index_t d = 0; d < N; ++d)
    for (index_t m = 0; m < N; ++m) CHECK(per_device(d, m) == float(m));

  auto x2 = nax::eval(nax::split<i, i, c>(nax::arange<float, i>(N * 4), 4));  // (i=N, c=4)
  auto t = nax::pmap<i>([](const auto& v) { return nax::all_gather<i, c>(v, nax::tiled); }, mesh4())(x2);
  static_assert(std::is_same_v<decltype(t), nax::Array<float, c>>);
  REQUIRE(t.extent<c>() == 4 * N);
  for (index_t q = 0; q < 4 * N; ++q) CHECK(t(q) == float(q));
}

TEST_CASE("pmap: psum_scatter of arange(16).reshape(4, 4)") {
  auto x = nax::eval(nax::split<i, i, s>(nax::arange<float, i>(16), 4));
  auto u = nax::pmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v); }, mesh4())(x);
  static_assert(std::is_same_v<decltype(u), nax::Array<float, i>>);
  const float expected[4] = {24, 28, 32, 36};
  for (index_t d = 0; d < N; ++d) CHECK(u(d) == expected[d]);
  auto t = nax::pmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v, nax::tiled); }, mesh4())(x);
  static_assert(std::is_same_v<decltype(t), nax::Array<float, i, s>>);
  REQUIRE(t.extent<s>() == 1);
  for (index_t d = 0; d < N; ++d) CHECK(t(d, 0) == expected[d]);
}

TEST_CASE("pmap: ppermute") {
  nax_test::random_source rng(3);
  auto x = nax_test::random_array<std::int32_t, i, c>(rng, {N, 3});
  std::vector<std::pair<int, int>> roll, shift;
  for (int d = 0; d < N; ++d) roll.push_back({d, (d + 1) % N});
  for (int d = 0; d + 1 < N; ++d) shift.push_back({d, d + 1});
  auto [rolled, shifted] = nax::pmap<i>([&](const auto& v) {
    return nax::tuple(nax::ppermute<i>(v, roll), nax::ppermute<i>(v, shift));
  }, mesh4())(x);
  for (index_t d = 0; d < N; ++d)
    for (index_t q = 0; q < 3; ++q) {
      CHECK(rolled(d, q) == x((d + N - 1) % N, q));  // roll by 1
      CHECK(shifted(d, q) == (d == 0 ? 0 : x(d - 1, q)));
    }

  // xs = [0, 10, 20], perm [[1, 0], [2, 1], [0, 2]] -> [10, 20, 0], on 3 devices.
  nax::Mesh<dev> mesh3(nax::host::devices(3), {3});
  nax::Array<float, i> xs({3}, {0, 10, 20});
  auto r = nax::pmap<i>([](const auto& v) { return nax::ppermute<i>(v, {{1, 0}, {2, 1}, {0, 2}}); }, mesh3)(xs);
  CHECK(r(0) == 10.f);
  CHECK(r(1) == 20.f);
  CHECK(r(2) == 0.f);
  // ... and the same under vmap.
  nax::Array<float, i> rv = nax::vmap<i>([](const auto& v) { return nax::ppermute<i>(v, {{1, 0}, {2, 1}, {0, 2}}); })(xs);
  for (index_t m = 0; m < 3; ++m) CHECK(rv(m) == r(m));
}

TEST_CASE("pmap: all_to_all against a loop") {
  nax_test::random_source rng(4);
  auto x = nax_test::random_array<float, i, c, s>(rng, {N, 2, N});
  auto y = nax::pmap<i>([](const auto& v) { return nax::all_to_all<i, s, n>(v); }, mesh4())(x);
  static_assert(std::is_same_v<decltype(y), nax::Array<float, i, c, n>>);
  nax_test::check_all(y, [&](const index_map& idx) { return x(idx.at("n"), idx.at("c"), idx.at("i")); });
}

TEST_CASE("pmap: errors") {
  nax::Array<float, i> five({5});
  CHECK_THROWS_WITH_AS((void)nax::pmap<i>([](const auto& v) { return v * 2.f; }, mesh4())(five),
                       doctest::Contains("'i'"), nax::shape_error);
  CHECK_THROWS_WITH_AS((void)nax::pmap<i>([](const auto& v) { return v * 2.f; }, mesh4())(five),
                       doctest::Contains("5"), nax::shape_error);

  // A bad permutation fails on the devices and is rethrown; the mesh stays usable.
  auto mesh = mesh4();
  nax::Array<float, i> x({N}, {1, 2, 3, 4});
  CHECK_THROWS_WITH_AS(
      (void)nax::pmap<i>([](const auto& v) { return nax::ppermute<i>(v, {{0, 1}, {0, 2}}); }, mesh)(x),
      doctest::Contains("source 0 appears twice"), nax::argument_error);
  CHECK_THROWS_WITH_AS(
      (void)nax::pmap<i>([](const auto& v) { return nax::ppermute<i>(v, {{1, 3}, {2, 3}}); }, mesh)(x),
      doctest::Contains("destination 3 appears twice"), nax::argument_error);
  CHECK_THROWS_WITH_AS((void)nax::pmap<i>([](const auto& v) { return nax::ppermute<i>(v, {{0, N}}); }, mesh)(x),
                       doctest::Contains("outside"), nax::argument_error);
  auto after = nax::pmap<i>([](const auto& v) { return nax::psum<i>(v); }, mesh)(x);
  CHECK(after.item() == 10.f);
}

// ---- Several members per device --------------------------------------------------------

TEST_CASE("xmap: data-moving collectives over a mesh axis with several members per device equal vmap") {
  nax_test::random_source rng(15);
  auto x = nax_test::random_array<float, batch, s, c>(rng, {8, 8, 2});
  std::vector<int> target = {3, 0, 7, 5, 1, 2, 6, 4};
  std::vector<std::pair<int, int>> perm;
  for (int m = 0; m < 8; ++m) perm.push_back({m, target[std::size_t(m)]});
  perm.pop_back();  // member 4 receives zeros
  auto f = [&perm](const auto& v) {
    return nax::tuple(nax::all_to_all<batch, s, n>(v), nax::psum_scatter<batch, s>(v), nax::psum_scatter<batch, s>(v, nax::tiled),
                      nax::ppermute<batch>(v, perm), nax::all_gather<batch, c>(v, nax::tiled),
                      nax::cast<float>(nax::axis_index<batch>()) + 0.f * v, nax::pmax<batch>(v), nax::pmean<batch>(v));
  };
  auto vm = nax::vmap<batch>(f)(x);
  for (int devices : {1, 2, 4, 8}) {
    CAPTURE(devices);
    nax::Mesh<data> mesh(nax::host::devices(devices), {devices});
    auto xm = nax::xmap<nax::bind<batch, data>>(f, mesh)(x);
    std::apply([&](const auto&... outputs) {
      std::apply([&](const auto&... references) { (check_same(outputs, nax::eval(references), 1e-5), ...); }, vm);
    }, xm);
  }
  // Spot checks of the vmap side against loops (the rest of this file checks them on pmap).
  nax::Array<float, batch, c> scattered = std::get<1>(vm);
  nax_test::check_all(scattered, [&](const index_map& idx) {
    double acc = 0;
    for (index_t m = 0; m < 8; ++m) acc += x(m, idx.at("batch"), idx.at("c"));
    return acc;
  }, 1e-5, 1e-5);
  nax::Array<float, batch, s, c> permuted = std::get<3>(vm);
  nax_test::check_all(permuted, [&](const index_map& idx) {
    for (int m = 0; m < 7; ++m)
      if (target[std::size_t(m)] == idx.at("batch")) return x(m, idx.at("s"), idx.at("c"));
    return 0.f;
  });
}
