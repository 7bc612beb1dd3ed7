// nax::io::save_tree / load_tree: pytrees (structs, std::vector, std::array, tuples, numbers)
// round-trip on random extents (0 and 1 included); leaves matched by path and axes by name;
// numpy's np.savez archives read (ZIP64 entries), numpy reading nax's (check_npz.py); every
// refusal names the leaf.
#include <doctest/doctest.h>

#include <boost/hana/define_struct.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "../support/reference.hpp"
#include "io_support.hpp"

namespace {
NAX_AXIS(p);
NAX_AXIS(q);
NAX_AXIS(r);

using namespace io_test;

struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<float, p, q>, w), (nax::Array<float, q>, bias));
};
struct Model {
  BOOST_HANA_DEFINE_STRUCT(Model, (std::vector<Layer>, layers), (nax::Array<double, r>, scale),
                           (std::array<nax::Array<std::int32_t, p>, 2>, ids),
                           (std::tuple<nax::Array<bool, q, p>, double, std::int64_t>, misc));
};
struct WB {
  BOOST_HANA_DEFINE_STRUCT(WB, (nax::Array<double, p, q>, w), (nax::Array<std::int32_t, p>, b));
};
NAX_AXIS(rows);
NAX_AXIS(cols);
// The same tree with its arrays sharded over a mesh (GlobalArrays), and gathered (Arrays).
struct ShardedNet {
  BOOST_HANA_DEFINE_STRUCT(ShardedNet, (std::vector<nax::GlobalArray<float, p, q>>, layers),
                           (nax::GlobalArray<double, r>, scale), (std::int64_t, step));
};
struct GatheredNet {
  BOOST_HANA_DEFINE_STRUCT(GatheredNet, (std::vector<nax::Array<float, p, q>>, layers),
                           (nax::Array<double, r>, scale), (std::int64_t, step));
};

template <class A>
void check_equal(const A& x, const A& y) {
  REQUIRE(x.extents() == y.extents());
  for (index_t i = 0; i < x.size(); ++i) CHECK(x.data()[i] == y.data()[i]);
}

Model random_model(nax_test::random_source& rng, std::size_t depth) {
  Model m;
  for (std::size_t l = 0; l != depth; ++l) {
    const auto e = rng.extents<2>(4);
    m.layers.push_back(Layer{nax_test::random_array<float, p, q>(rng, e), nax_test::random_array<float, q>(rng, {e[1]})});
  }
  m.scale = nax_test::random_array<double, r>(rng, rng.extents<1>(6));
  for (auto& x : m.ids) x = nax_test::random_array<std::int32_t, p>(rng, rng.extents<1>(5));
  std::get<0>(m.misc) = nax_test::random_array<bool, q, p>(rng, rng.extents<2>(3));
  std::get<1>(m.misc) = rng.value<double>();
  std::get<2>(m.misc) = rng.integer(-1000000, 1000000);
  return m;
}

}  // namespace

TEST_CASE("save_tree then load_tree gives the same tree: structs, a std::vector, std::array, tuples, numbers") {
  scratch dir("tree_round_trip");
  nax_test::random_source rng(5201);
  for (std::size_t depth : {0u, 1u, 3u}) {
    const Model m = random_model(rng, depth);
    nax::io::save_tree(dir / "m.npz", m);
    Model like;
    like.layers.resize(depth);
    const Model r = nax::io::load_tree(dir / "m.npz", like);
    REQUIRE(r.layers.size() == depth);
    for (std::size_t l = 0; l != depth; ++l) {
      check_equal(m.layers[l].w, r.layers[l].w);
      check_equal(m.layers[l].bias, r.layers[l].bias);
    }
    check_equal(m.scale, r.scale);
    check_equal(m.ids[0], r.ids[0]);
    check_equal(m.ids[1], r.ids[1]);
    check_equal(std::get<0>(m.misc), std::get<0>(r.misc));
    CHECK(std::get<1>(m.misc) == std::get<1>(r.misc));
    CHECK(std::get<2>(m.misc) == std::get<2>(r.misc));
  }
}

TEST_CASE("load_tree matches axes by name: a leaf saved as (p, q, r) loads into (r, p, q) transposed") {
  scratch dir("by_name");
  nax_test::random_source rng(5202);
  auto x = nax_test::random_array<float, p, q, r>(rng, {2, 3, 4});
  nax::io::save_tree(dir / "t.npz", std::make_tuple(x, nax::Array<double, p>({3}, {1.0, 2.0, 3.0})));
  auto [y, d] = nax::io::load_tree(dir / "t.npz", std::tuple<nax::Array<float, r, p, q>, nax::Array<double, p>>{});
  REQUIRE(y.extents() == std::array<index_t, 3>{4, 2, 3});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 4; ++k) CHECK(y(k, i, j) == x(i, j, k));
  CHECK(d(2) == 3.0);
  // A lone leaf is the entry arr_0, as numpy names an unnamed array.
  nax::io::save_tree(dir / "one.npz", x);
  check_equal(x, nax::io::load_tree(dir / "one.npz", nax::Array<float, p, q, r>{}));
}

TEST_CASE("load_tree reads np.savez's archive (ZIP64 entries, no axis names: declared order)") {
  const WB wb = nax::io::load_tree(data("savez.npz"), WB{});
  REQUIRE(wb.w.extents() == std::array<index_t, 2>{3, 2});
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(wb.w(i, j) == double(2 * i + j));
  REQUIRE(wb.b.size() == 2);
  CHECK(wb.b(0) == 5);
  CHECK(wb.b(1) == -7);
  CHECK(error_of([] { (void)nax::io::load_tree(data("savez_compressed.npz"), WB{}); }).find("np.savez_compressed") !=
        std::string::npos);
}

TEST_CASE("numpy reads what save_tree wrote") {
  if (numpy_python().empty()) {
    MESSAGE("numpy checks skipped: python3 with numpy was not found (Debian: python3-numpy)");
    return;
  }
  scratch dir("tree_numpy");
  Model m;
  m.layers.push_back(Layer{patterned<float, p, q>({2, 3}), patterned<float, q>({3})});
  m.layers.push_back(Layer{patterned<float, p, q>({0, 3}), patterned<float, q>({1})});
  m.scale = patterned<double, r>({5});
  m.ids = {patterned<std::int32_t, p>({4}), patterned<std::int32_t, p>({1})};
  m.misc = {patterned<bool, q, p>({3, 2}), -50.0, std::int64_t{-50}};
  nax::io::save_tree(dir / "m.npz", m);
  const std::string command =
      numpy_python() + " '" + script("check_npz.py").string() + "' '" +
      (dir / "m.npz").string() +
      "' layers/0/w:f4:2,3 layers/0/bias:f4:3 layers/1/w:f4:0,3 layers/1/bias:f4:1 scale:f8:5 ids/0:i4:4 ids/1:i4:1 "
      "misc/0:bool:3,2 misc/1:f8: misc/2:i8:";
  INFO(command);
  CHECK(std::system(command.c_str()) == 0);
}

TEST_CASE("load_tree refuses what does not fit the tree, naming the leaf") {
  scratch dir("tree_errors");
  nax_test::random_source rng(5203);
  const Model m = random_model(rng, 2);
  const auto path = dir / "m.npz";
  nax::io::save_tree(path, m);

  Model longer;
  longer.layers.resize(3);
  auto missing = error_of([&] { nax::io::load_tree_into(path, longer); });
  CHECK(missing.find("no entry 'layers/2/w.npy'") != std::string::npos);

  Model shorter;
  shorter.layers.resize(1);
  auto extra = error_of([&] { nax::io::load_tree_into(path, shorter); });
  CHECK(extra.find("'layers/1/bias.npy', 'layers/1/w.npy'") != std::string::npos);
  CHECK(extra.find("std::vector of another length") != std::string::npos);

  using Other = std::tuple<nax::Array<float, p, r>>;
  nax::io::save_tree(dir / "t.npz", std::make_tuple(nax::Array<float, p, q>({2, 2})));
  auto names = error_of([&] { (void)nax::io::load_tree(dir / "t.npz", Other{}); });
  CHECK(names.find("leaf '0'") != std::string::npos);
  CHECK(names.find("saved with the axes (p, q)") != std::string::npos);
  CHECK(names.find("has the axes (p, r)") != std::string::npos);

  auto dtype = error_of([&] { (void)nax::io::load_tree(dir / "t.npz", std::tuple<nax::Array<double, q, p>>{}); });
  CHECK(dtype.find("leaf '0'") != std::string::npos);
  CHECK(dtype.find("'<f4'") != std::string::npos);

  // A damaged byte in an entry's data: its CRC-32 no longer matches.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::string damaged = bytes;
  damaged[damaged.find("NUMPY") + 40] ^= 0x20;
  std::ofstream(dir / "damaged.npz", std::ios::binary) << damaged;
  Model two;
  two.layers.resize(2);
  CHECK(error_of([&] { nax::io::load_tree_into(dir / "damaged.npz", two); }).find("CRC-32") != std::string::npos);
  std::ofstream(dir / "cut.npz", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK(error_of([&] { nax::io::load_tree_into(dir / "cut.npz", two); }).find("is not a ZIP archive") != std::string::npos);
  std::ofstream(dir / "short.npz", std::ios::binary) << "PK";
  CHECK(error_of([&] { nax::io::load_tree_into(dir / "short.npz", two); }).find("too short") != std::string::npos);
  // The whole file is fine.
  nax::io::load_tree_into(path, two);
  check_equal(m.layers[1].w, two.layers[1].w);
}

TEST_CASE("a damaged or cut archive raises io_error, whichever byte is hit (never a crash or another error)") {
  scratch dir("tree_fuzz");
  nax_test::random_source rng(5204);
  const Model m = random_model(rng, 2);
  nax::io::save_tree(dir / "m.npz", m);
  const std::string bytes = slurp(dir / "m.npz");
  int raised = 0, loaded = 0;
  for (int rep = 0; rep < 300; ++rep) {
    std::string damaged = bytes;
    if (rep % 3 == 0) {
      damaged.resize(std::size_t(rng.integer(0, index_t(bytes.size()) - 1)));
    } else {
      for (int k = 0; k < 1 + rep % 4; ++k)
        damaged[std::size_t(rng.integer(0, index_t(bytes.size()) - 1))] ^= char(1 << rng.integer(0, 7));
    }
    write_bytes(dir / "d.npz", damaged);
    Model like;
    like.layers.resize(2);
    try {
      nax::io::load_tree_into(dir / "d.npz", like);
      ++loaded;  // (a flip in a field nothing reads, e.g. the time stamps)
    } catch (const nax::io_error&) {
      ++raised;
    }
  }
  CHECK(raised + loaded == 300);
  CHECK(raised > 250);
}

TEST_CASE("GlobalArray leaves: saved whole from one mesh, loaded onto a mesh of another shape or into Arrays") {
  scratch dir("tree_sharded");
  nax_test::random_source rng(5207);
  nax::Mesh<rows> line(nax::host::devices(4), {4});
  nax::Mesh<rows, cols> square(nax::host::devices(4), {2, 2});
  for (int trial = 0; trial < 3; ++trial) {
    CAPTURE(trial);
    // p splits over 4 devices (extents 0, 4, 8), q over 2; r is replicated.
    GatheredNet plain;
    for (int l = 0, depth = 1 + rng.integer(0, 2); l < depth; ++l)
      plain.layers.push_back(nax_test::random_array<float, p, q>(rng, {4 * rng.integer(0, 2), 2 * rng.integer(0, 2)}));
    plain.scale = nax_test::random_array<double, r>(rng, {rng.integer(0, 5)});
    plain.step = rng.integer(0, 1000);
    ShardedNet sharded{{}, nax::device_put<>(line, plain.scale), plain.step};
    for (const auto& w : plain.layers) sharded.layers.push_back(nax::device_put<nax::shard<p, rows>>(line, w));

    // The file is the gathered tree's, byte for byte.
    nax::io::save_tree(dir / "sharded.npz", sharded);
    nax::io::save_tree(dir / "plain.npz", plain);
    CHECK(slurp(dir / "sharded.npz") == slurp(dir / "plain.npz"));

    // Into Arrays.
    GatheredNet back;
    back.layers.resize(plain.layers.size());
    nax::io::load_tree_into(dir / "sharded.npz", back);
    for (std::size_t l = 0; l < plain.layers.size(); ++l) check_equal(plain.layers[l], back.layers[l]);
    check_equal(plain.scale, back.scale);
    CHECK(back.step == plain.step);

    // Onto a 2 x 2 mesh, split otherwise: p over cols, q over rows, scale replicated. The
    // tree's GlobalArrays give the mesh and the split; their extents are the file's.
    ShardedNet like{{}, nax::device_put<>(square, nax::Array<double, r>({0})), 0};
    for (std::size_t l = 0; l < plain.layers.size(); ++l)
      like.layers.push_back(nax::device_put<nax::shard<p, cols>, nax::shard<q, rows>>(square, nax::Array<float, p, q>({0, 0})));
    const ShardedNet loaded = nax::io::load_tree(dir / "sharded.npz", like);
    CHECK(loaded.step == plain.step);
    for (std::size_t l = 0; l < plain.layers.size(); ++l) {
      const auto& g = loaded.layers[l];
      CHECK(g.extents() == plain.layers[l].extents());
      CHECK(g.split_over() == std::array<int, 2>{1, 0});
      for (int d = 0; d < 4; ++d) {
        // Device d's block of the saved array, at its offsets.
        const auto& shard = g.shard_of(d);
        REQUIRE(shard.extents() == std::array<index_t, 2>{g.extents()[0] / 2, g.extents()[1] / 2});
        for (index_t i = 0; i < shard.extents()[0]; ++i)
          for (index_t j = 0; j < shard.extents()[1]; ++j)
            CHECK(shard.data()[i * shard.extents()[1] + j] ==
                  plain.layers[l].data()[(g.offset(d, 0) + i) * g.extents()[1] + g.offset(d, 1) + j]);
      }
      check_equal(plain.layers[l], g.gather());
    }
    for (int d = 0; d < 4; ++d) check_equal(plain.scale, loaded.scale.shard_of(d));

    // Arrays saved, loaded into GlobalArrays whose axes are in another order (by name).
    nax::io::save_tree(dir / "one.npz", std::make_tuple(plain.layers[0]));
    auto like_qp = std::make_tuple(nax::device_put<nax::shard<q, cols>>(square, nax::Array<float, q, p>({0, 0})));
    const auto transposed = std::get<0>(nax::io::load_tree(dir / "one.npz", like_qp)).gather();
    const auto& w = plain.layers[0];
    REQUIRE(transposed.extents() == std::array<index_t, 2>{w.extents()[1], w.extents()[0]});
    for (index_t i = 0; i < w.extents()[0]; ++i)
      for (index_t j = 0; j < w.extents()[1]; ++j)
        CHECK(transposed.data()[j * w.extents()[0] + i] == w.data()[i * w.extents()[1] + j]);
  }

  // A stored extent the loading mesh cannot split: shape_error naming the file, the leaf, the
  // axis and the mesh axis. A default GlobalArray (on no mesh) cannot be loaded into.
  nax::io::save_tree(dir / "odd.npz", std::make_tuple(nax::Array<float, p, q>({3, 2})));
  auto like = std::make_tuple(nax::device_put<nax::shard<p, cols>>(square, nax::Array<float, p, q>({0, 0})));
  nax_test::check_shape_error([&] { (void)nax::io::load_tree(dir / "odd.npz", like); },
                              {"odd.npz (leaf '0')", "'p'", "extent 3", "'cols'", "size 2"});
  CHECK_THROWS_WITH_AS((void)nax::io::load_tree(dir / "odd.npz", std::tuple<nax::GlobalArray<float, p, q>>{}),
                       doctest::Contains("(leaf '0'): nax: device_put_like: the GlobalArray to place x like was never placed"),
                       nax::argument_error);
}
