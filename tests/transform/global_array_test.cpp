// GlobalArray: device_put splits an array by name over mesh axes (shard<logical, mesh_axis>),
// shard_of(device) holds each device's block, gather() brings back the whole array; xmap
// reads GlobalArray arguments whose sharding matches its bindings and rejects the others.
// Errors: extents that do not divide, devices without a shard.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>

#include "../support/reference.hpp"

namespace {

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);

using nax_test::at;
using nax_test::index_map;
using nax_test::index_t;

// Every element of the shard of `device` against x at the shard's offsets.
template <class G, class X>
void check_shards(const G& global, const X& x) {
  for (int d = 0; d < global.device_count(); ++d) {
    CAPTURE(d);
    REQUIRE(global.holds(d));
    const auto& shard = global.shard_of(d);
    const auto names = nax_test::names_of(typename X::axes_type{});
    for (std::size_t a = 0; a < names.size(); ++a)
      CHECK(shard.extents()[a] == global.extents()[a] / global.split_into()[a]);
    nax_test::check_all(shard, [&](const index_map& idx) {
      index_map shifted = idx;
      for (std::size_t a = 0; a < names.size(); ++a) shifted[names[a]] += global.offset(d, a);
      return at(x, shifted);
    });
  }
}

}  // namespace

TEST_CASE("GlobalArray: device_put over one mesh axis, shard_of and gather") {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  nax_test::random_source rng(1);
  auto x = nax_test::random_array<float, batch, in>(rng, {8, 3});
  auto gx = nax::device_put<nax::shard<batch, data>>(mesh, x);
  static_assert(std::is_same_v<decltype(gx), nax::GlobalArray<float, batch, in>>);
  CHECK(gx.extents() == std::array<index_t, 2>{8, 3});
  CHECK(gx.split_over() == std::array<int, 2>{0, -1});
  CHECK(gx.split_into() == std::array<int, 2>{4, 1});
  CHECK(gx.device_count() == 4);
  for (int d = 0; d < 4; ++d) CHECK(gx.offset(d, 0) == 2 * d);
  check_shards(gx, x);
  nax::Array<float, batch, in> back = gx.gather();
  nax_test::check_all(back, [&](const index_map& idx) { return at(x, idx); });

  // The split axis need not be first; an expression can be put directly.
  nax::Array<std::int32_t, in, batch> y({3, 8});
  for (index_t q = 0; q < y.size(); ++q) y.data()[q] = std::int32_t(q);
  auto gy = nax::device_put<nax::shard<batch, data>>(mesh, y * 2);
  static_assert(std::is_same_v<decltype(gy), nax::GlobalArray<std::int32_t, in, batch>>);
  CHECK(gy.split_over() == std::array<int, 2>{-1, 0});
  nax::Array<std::int32_t, in, batch> twice = y * 2;
  check_shards(gy, twice);
  auto gathered = gy.gather();
  for (index_t q = 0; q < y.size(); ++q) CHECK(gathered.data()[q] == 2 * y.data()[q]);
}

TEST_CASE("GlobalArray: two axes over a 4 x 2 mesh, one axis over it, none over it") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax_test::random_source rng(2);
  auto x = nax_test::random_array<double, batch, hidden>(rng, {8, 6});

  auto both = nax::device_put<nax::shard<batch, data>, nax::shard<hidden, model>>(mesh, x);
  CHECK(both.split_over() == std::array<int, 2>{0, 1});
  for (int d = 0; d < 8; ++d) {
    CHECK(both.shard_of(d).extents() == std::array<index_t, 2>{2, 3});
    CHECK(both.offset(d, 0) == 2 * (d / 2));
    CHECK(both.offset(d, 1) == 3 * (d % 2));
  }
  check_shards(both, x);
  nax_test::check_all(both.gather(), [&](const index_map& idx) { return at(x, idx); });

  // Hidden over the data axis, batch over model: any pairing by name.
  auto swapped = nax::device_put<nax::shard<hidden, data>, nax::shard<batch, model>>(
      nax::Mesh<data, model>(nax::host::devices(4), {2, 2}), x);
  check_shards(swapped, x);
  nax_test::check_all(swapped.gather(), [&](const index_map& idx) { return at(x, idx); });

  // Batch only: replicated over model (devices (a, 0) and (a, 1) hold equal shards).
  auto rows = nax::device_put<nax::shard<batch, data>>(mesh, x);
  check_shards(rows, x);
  for (int a = 0; a < 4; ++a)
    for (index_t q = 0; q < 12; ++q) CHECK(rows.shard_of(2 * a).data()[q] == rows.shard_of(2 * a + 1).data()[q]);
  nax_test::check_all(rows.gather(), [&](const index_map& idx) { return at(x, idx); });

  // Nothing sharded: every device holds the whole array.
  auto whole = nax::device_put<>(mesh, x);
  CHECK(whole.split_over() == std::array<int, 2>{-1, -1});
  for (int d = 0; d < 8; ++d) nax_test::check_all(whole.shard_of(d), [&](const index_map& idx) { return at(x, idx); });
  nax_test::check_all(whole.gather(), [&](const index_map& idx) { return at(x, idx); });
}

TEST_CASE("GlobalArray: errors") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax::Array<float, batch, hidden> x({6, 4});
  nax_test::check_shape_error([&] { (void)nax::device_put<nax::shard<batch, data>>(mesh, x); },
                              {"'batch'", "extent 6", "'data'", "size 4"});
  nax_test::check_shape_error([&] { (void)nax::device_put<nax::shard<hidden, model>, nax::shard<batch, data>>(mesh, x); },
                              {"'batch'", "extent 6", "'data'", "size 4"});
  auto g = nax::device_put<nax::shard<batch, model>>(mesh, x);
  CHECK_THROWS_AS((void)g.shard_of(-1), nax::argument_error);
  CHECK_THROWS_AS((void)g.shard_of(8), nax::argument_error);
  CHECK_FALSE(g.holds(8));
  CHECK(g.holds(7));
}

TEST_CASE("GlobalArray: xmap reads shards whose sharding matches its bindings") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax_test::random_source rng(3);
  auto x = nax_test::random_array<float, batch, in>(rng, {8, 3});
  auto w = nax_test::random_array<float, in, hidden>(rng, {3, 4});
  auto b = nax_test::random_array<float, hidden>(rng, {4});
  auto layer = [](const auto& xv, const auto& wv, const auto& bv) {
    auto h = nax::tanh(nax::dot<in>(xv, wv) + bv);
    return nax::tuple(h, nax::psum<batch, hidden>(nax::sum(h)));
  };
  auto step = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(layer, mesh);
  const auto reference = step(x, w, b);
  const auto& h_ref = std::get<0>(reference);
  const auto& total_ref = std::get<1>(reference);  // (clang 16 cannot capture a structured binding under -fopenmp)

  auto gx = nax::device_put<nax::shard<batch, data>>(mesh, x);
  auto gw = nax::device_put<nax::shard<hidden, model>>(mesh, w);
  auto gb = nax::device_put<nax::shard<hidden, model>>(mesh, b);
  auto check = [&](const auto& outputs) {
    const auto& [h, total] = outputs;
    nax_test::check_all(h, [&](const index_map& idx) { return at(h_ref, idx); });
    CHECK(total.item() == doctest::Approx(total_ref.item()).epsilon(1e-5));
  };
  check(step(gx, w, b));
  check(step(x, gw, gb));
  check(step(gx, gw, gb));
  // Replicated GlobalArrays are fine too: each device reads its part.
  check(step(nax::device_put<>(mesh, x), nax::device_put<>(mesh, w), b));

  // A sharding that does not match the bindings is an argument_error.
  auto wrong = nax::device_put<nax::shard<batch, model>>(mesh, x);
  CHECK_THROWS_WITH_AS((void)step(wrong, w, b), doctest::Contains("'batch'"), nax::argument_error);
  auto wrong_w = nax::device_put<nax::shard<in, data>>(mesh, nax::eval(nax::zeros<float, in, hidden>(4, 4)));
  CHECK_THROWS_WITH_AS((void)step(x, wrong_w, b), doctest::Contains("'in'"), nax::argument_error);  // in is not bound
  auto vectorised = nax::xmap<nax::bind<batch>>([](const auto& v) { return v * 2.f; }, mesh);
  CHECK_THROWS_WITH_AS((void)vectorised(gx), doctest::Contains("'batch'"), nax::argument_error);
  // Arguments that disagree on an extent, GlobalArray and Array.
  nax::Array<float, hidden> b5({6});
  CHECK_THROWS_AS((void)step(x, gw, b5), nax::shape_error);
}

TEST_CASE("GlobalArray: one placed on a mesh of another shape is rejected by xmap") {
  nax_test::random_source rng(4);
  auto x = nax_test::random_array<float, batch, in>(rng, {8, 2});
  nax::Mesh<data> four(nax::host::devices(4), {4});
  nax::Mesh<data> two(nax::host::devices(2), {2});
  auto plus_one = [](const auto& v) { return v + 1.f; };
  auto on = [&](const auto& mesh, const auto& arg) { return nax::xmap<nax::bind<batch, data>>(plus_one, mesh)(arg); };
  // Fewer devices than the xmap's mesh: devices without a shard.
  auto g2 = nax::device_put<nax::shard<batch, data>>(two, x);
  CHECK_THROWS_WITH_AS((void)on(four, g2), doctest::Contains("laid out differently"), nax::argument_error);
  // More devices than the xmap's mesh: shards smaller than the xmap expects.
  auto g4 = nax::device_put<nax::shard<batch, data>>(four, x);
  CHECK_THROWS_WITH_AS((void)on(two, g4), doctest::Contains("4 devices"), nax::argument_error);
  // The same device count laid out as another shape.
  nax::Mesh<data, model> two_by_two(nax::host::devices(4), {2, 2});
  auto g22 = nax::device_put<nax::shard<batch, data>>(two_by_two, x);
  auto on_22 = nax::xmap<nax::bind<batch, data>>(plus_one, nax::Mesh<data>(nax::host::devices(4), {4}));
  CHECK_THROWS_AS((void)on_22(g22), nax::argument_error);
  // The same shape on another Mesh object is fine.
  nax::Mesh<data> other(nax::host::devices(4), {4});
  auto r = on(other, nax::device_put<nax::shard<batch, data>>(four, x));
  nax_test::check_all(r, [&](const index_map& idx) { return at(x, idx) + 1.f; });
}

TEST_CASE("GlobalArray: device_put_like splits another array as the first is split, on its mesh") {
  nax_test::random_source rng(7);
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  auto like = nax::device_put<nax::shard<batch, model>, nax::shard<hidden, data>>(
      mesh, nax::Array<float, batch, hidden>({2, 2}));
  for (int trial = 0; trial < 4; ++trial) {
    // Other extents than like's (0 included), and x's axes in another order, as an expression.
    const index_t b = 2 * rng.integer(0, 3), h = 2 * rng.integer(0, 3);
    auto x = nax_test::random_array<float, hidden, batch>(rng, {h, b});
    auto g = nax::device_put_like(like, x * 2.0f);
    static_assert(std::is_same_v<decltype(g), nax::GlobalArray<float, batch, hidden>>);
    CHECK(g.extents() == std::array<index_t, 2>{b, h});
    CHECK(g.split_over() == like.split_over());
    CHECK(g.split_into() == like.split_into());
    nax::Array<float, batch, hidden> twice = x * 2.0f;
    check_shards(g, twice);
    nax_test::check_all(g.gather(), [&](const index_map& idx) { return at(twice, idx); });
  }
  // A replicated like gives every device the whole array.
  auto replicated = nax::device_put<>(mesh, nax::Array<double, in>({1}));
  auto x = nax_test::random_array<double, in>(rng, {5});
  auto g = nax::device_put_like(replicated, x);
  for (int d = 0; d < 4; ++d) nax_test::check_all(g.shard_of(d), [&](const index_map& idx) { return at(x, idx); });

  nax_test::check_shape_error([&] { (void)nax::device_put_like(like, nax::Array<float, batch, hidden>({4, 3})); },
                              {"device_put_like", "'hidden'", "extent 3", "'data'", "size 2"});
  CHECK_THROWS_WITH_AS((void)nax::device_put_like(nax::GlobalArray<float, batch, hidden>{}, nax::Array<float, batch, hidden>({2, 2})),
                       doctest::Contains("never placed on a mesh"), nax::argument_error);
}
