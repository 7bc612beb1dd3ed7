// Relayouts (expr/relayout.hpp, expr/join.hpp, expr/axis_index.hpp): transpose, rename,
// slice, split, merge, concatenate, stack, broadcast_to, axis_index and compositions of
// them, each against reference loops that compute the source index of every element by
// hand, on random extents (0 and 1 included); and their range and extent errors.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <type_traits>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(m);
NAX_AXIS(o);
NAX_AXIS(p);

using nax::index_t;
using nax_test::at;
using nax_test::index_map;

template <class E>
using axes_of = typename std::remove_cvref_t<E>::axes_type;
template <class E>
using value_of = typename std::remove_cvref_t<E>::value_type;

// idx with some names set to other values (the source index of a relayout).
index_map with(index_map idx, std::initializer_list<std::pair<const char*, index_t>> changes) {
  for (const auto& [name, value] : changes) idx[name] = value;
  return idx;
}
}  // namespace

TEST_CASE("transpose: the same values by name, laid out in the new order") {
  nax_test::random_source rng(31);
  auto run = [&](auto type_tag) {
    using T = decltype(type_tag);
    for (int trial = 0; trial < 5; ++trial) {
      auto sizes = rng.sizes({"i", "j", "k"});
      auto a = nax_test::random_array_of<T, nax::axes<i, j, k>>(rng, sizes);
      nax_test::for_each_permutation<i, j, k>([&](auto order) {
        auto t = [&]<class... Os>(nax::axes<Os...>) { return nax::eval(nax::transpose<Os...>(a)); }(order);
        static_assert(std::is_same_v<axes_of<decltype(t)>, decltype(order)>);
        nax_test::check_sizes(t, sizes);
        // check_all reads t through its row-major strides: this also checks the new layout.
        nax_test::check_all(t, [&](const index_map& x) { return at(a, x); }, 0, 0);
      });
      // Assigning a transpose to the original order changes nothing (assignment is by name).
      nax::Array<T, i, j, k> same = nax::transpose<k, j, i>(a);
      CHECK(std::equal(same.begin(), same.end(), a.begin(), a.end()));
    }
  };
  run(float{});
  run(double{});
  // A 2x3 transpose, spelled out.
  nax::Array<int, i, j> x({2, 3}, {1, 2, 3, 4, 5, 6});
  auto xt = nax::eval(nax::transpose<j, i>(x));
  CHECK(std::vector<int>(xt.begin(), xt.end()) == std::vector<int>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("rename: same data under a new name, in the old name's place") {
  nax_test::random_source rng(32);
  for (int trial = 0; trial < 8; ++trial) {
    auto sizes = rng.sizes({"i", "j"});
    auto a = nax_test::random_array_of<double, nax::axes<i, j>>(rng, sizes);
    auto r = nax::rename<i, k>(a);
    static_assert(std::is_same_v<axes_of<decltype(r)>, nax::axes<k, j>>);
    nax::Array<double, j, k> out = r;
    nax_test::check_all(out, [&](const index_map& x) { return at(a, with(x, {{"i", x.at("k")}})); }, 0, 0);
    // a(i, j) * a(j, i) renamed: the elementwise product with the transpose (square only).
    index_t n = sizes["i"];
    auto sq = nax_test::random_array<double, i, j>(rng, {n, n});
    nax::Array<double, i, j> prod = sq * nax::rename<m, j>(nax::rename<j, i>(nax::rename<i, m>(sq)));
    nax_test::check_all(prod, [&](const index_map& x) {
      return at(sq, x) * at(sq, {{"i", x.at("j")}, {"j", x.at("i")}});
    });
  }
}

TEST_CASE("slice with steps, empty results, and out-of-range errors") {
  nax_test::random_source rng(33);
  for (int trial = 0; trial < 30; ++trial) {
    auto sizes = rng.sizes({"i", "j"}, 7);
    auto a = nax_test::random_array_of<float, nax::axes<i, j>>(rng, sizes);
    index_t n = sizes["j"];
    index_t begin = rng.integer(0, n), end = rng.integer(begin, n), step = rng.integer(1, 4);
    auto s = nax::slice<j>(a, begin, end, step);
    static_assert(std::is_same_v<axes_of<decltype(s)>, nax::axes<i, j>>);
    index_t expected_extent = (end - begin + step - 1) / step;
    nax::Array<float, j, i> out = s;
    CHECK(out.extent<j>() == expected_extent);
    CHECK(out.extent<i>() == sizes["i"]);
    nax_test::check_all(out, [&](const index_map& x) { return at(a, with(x, {{"j", begin + x.at("j") * step}})); }, 0, 0);
    // Slices of an expression, on both axes, with the default step.
    index_t ib = rng.integer(0, sizes["i"]), ie = rng.integer(ib, sizes["i"]);
    nax::Array<float, i, j> both = nax::slice<i>(nax::slice<j>(a * 2.f, begin, end, step), ib, ie);
    CHECK(both.extent<i>() == ie - ib);
    nax_test::check_all(both, [&](const index_map& x) {
      return 2.f * at(a, {{"i", ib + x.at("i")}, {"j", begin + x.at("j") * step}});
    }, 0, 0);
  }
  nax::Array<float, i, j> a({3, 5});
  CHECK(nax::eval(nax::slice<j>(a, 5, 5)).size() == 0);
  CHECK(nax::eval(nax::slice<j>(a, 0, 0, 3)).size() == 0);
  CHECK(nax::eval(nax::slice<j>(a, 4, 5, 100)).extent<j>() == 1);
  nax_test::check_shape_error([&] { (void)nax::slice<j>(a, 0, 6); }, {"'j'", "[0, 6)", "extent is 5"});
  nax_test::check_shape_error([&] { (void)nax::slice<j>(a, -1, 2); }, {"'j'", "[-1, 2)"});
  nax_test::check_shape_error([&] { (void)nax::slice<i>(a, 2, 1); }, {"'i'", "[2, 1)", "extent is 3"});
  nax_test::check_shape_error([&] { (void)nax::slice<i>(a, 0, 3, 0); }, {"'i'", "step 0"});
  nax_test::check_shape_error([&] { (void)nax::slice<i>(a, 0, 3, -1); }, {"'i'", "step -1"});
}

TEST_CASE("split: A becomes (Outer, Inner) in A's place; non-dividing extents throw") {
  nax_test::random_source rng(34);
  for (int trial = 0; trial < 20; ++trial) {
    index_t inner = rng.nonzero_extent(4), outer = rng.extent(4);
    index_t nk = rng.extent(3), ni = rng.extent(3);
    auto a = nax_test::random_array<double, k, j, i>(rng, {nk, outer * inner, ni});
    auto s = nax::split<j, o, p>(a, inner);
    static_assert(std::is_same_v<axes_of<decltype(s)>, nax::axes<k, o, p, i>>);
    nax::Array<double, p, i, k, o> out = s;
    CHECK(out.extent<o>() == outer);
    CHECK(out.extent<p>() == inner);
    nax_test::check_all(out, [&](const index_map& x) {
      return at(a, with(x, {{"j", x.at("o") * inner + x.at("p")}}));
    }, 0, 0);
  }
  nax::Array<float, i, j> a({2, 6});
  nax_test::check_shape_error([&] { (void)nax::split<j, o, p>(a, 4); }, {"'j'", "extent 6", "inner extent of 4"});
  nax_test::check_shape_error([&] { (void)nax::split<j, o, p>(a, 0); }, {"'j'", "0"});
  nax_test::check_shape_error([&] { (void)nax::split<i, o, p>(a * 2.f, 3); }, {"'i'", "extent 2", "3"});
  nax::Array<float, i, j> empty({2, 0});
  CHECK(nax::eval(nax::split<j, o, p>(empty, 5)).extent<p>() == 5);  // 0 = 0 * 5
}

TEST_CASE("merge: of arrays, of views that cannot merge in place, of expressions") {
  nax_test::random_source rng(35);
  for (int trial = 0; trial < 15; ++trial) {
    auto sizes = rng.nonzero_sizes({"i", "j", "k"}, 4);  // zero extents: the last test case
    index_t ni = sizes["i"], nj = sizes["j"], nk = sizes["k"];
    auto a = nax_test::random_array_of<float, nax::axes<i, j, k>>(rng, sizes);

    // Adjacent in memory: m = i * nj + j.
    auto adjacent = nax::merge<i, j, m>(a);
    static_assert(std::is_same_v<axes_of<decltype(adjacent)>, nax::axes<m, k>>);
    nax::Array<float, k, m> out1 = adjacent;
    CHECK(out1.extent<m>() == ni * nj);
    nax_test::check_all(out1, [&](const index_map& x) {
      index_t mm = x.at("m");
      return at(a, {{"i", mm / nj}, {"j", mm % nj}, {"k", x.at("k")}});
    }, 0, 0);

    // Inner before outer in memory, not adjacent: m = k * ni + i; result axes (j, m).
    auto reversed = nax::merge<k, i, m>(a);
    static_assert(std::is_same_v<axes_of<decltype(reversed)>, nax::axes<j, m>>);
    nax::Array<float, m, j> out2 = reversed;
    CHECK(out2.extent<m>() == nk * ni);
    nax_test::check_all(out2, [&](const index_map& x) {
      index_t mm = x.at("m");
      return at(a, {{"k", mm / ni}, {"i", mm % ni}, {"j", x.at("j")}});
    }, 0, 0);

    // A column-major view of a (i, j) block: merge<i, j> cannot reuse its strides.
    auto storage = nax_test::random_array<float, o>(rng, {ni * nj});
    nax::ArrayView<float, i, j> column_major(storage.data(), {ni, nj}, {1, ni});
    nax::Array<float, m> out3 = nax::merge<i, j, m>(column_major);
    nax_test::check_all(out3, [&](const index_map& x) {
      index_t mm = x.at("m");
      return storage.data()[(mm / nj) + (mm % nj) * ni];
    }, 0, 0);
    // A transposed expression of a.
    nax::Array<float, m, i> out4 = nax::merge<k, j, m>(nax::transpose<k, j, i>(a));
    nax_test::check_all(out4, [&](const index_map& x) {
      index_t mm = x.at("m");
      return at(a, {{"k", mm / nj}, {"j", mm % nj}, {"i", x.at("i")}});
    }, 0, 0);
    // A view with padding between rows.
    auto padded = nax_test::random_array<float, o>(rng, {ni * (nj + 1)});
    nax::ArrayView<float, i, j> rows(padded.data(), {ni, nj}, {nj + 1, 1});
    nax::Array<float, m> out5 = nax::merge<i, j, m>(rows);
    nax_test::check_all(out5, [&](const index_map& x) {
      index_t mm = x.at("m");
      return padded.data()[(mm / nj) * (nj + 1) + mm % nj];
    }, 0, 0);
    // An expression.
    auto b = nax_test::random_array_of<float, nax::axes<k, j>>(rng, sizes);
    nax::Array<float, k, m> out6 = nax::merge<i, j, m>(a * 2.f + b);
    nax_test::check_all(out6, [&](const index_map& x) {
      index_t mm = x.at("m");
      index_map src{{"i", mm / nj}, {"j", mm % nj}, {"k", x.at("k")}};
      return at(a, src) * 2.f + at(b, src);
    });
  }
}

TEST_CASE("concatenate: 2-4 operands, different axis orders and types, extent errors") {
  nax_test::random_source rng(36);
  for (int trial = 0; trial < 12; ++trial) {
    auto sizes = rng.sizes({"i", "j"});
    index_t n1 = rng.extent(3), n2 = rng.extent(3), n3 = rng.extent(3), n4 = rng.extent(3);
    index_t ni = sizes["i"];
    auto a = nax_test::random_array<float, i, j>(rng, {ni, n1});
    auto b = nax_test::random_array<float, j, i>(rng, {n2, ni});  // other order
    auto c = nax_test::random_array<double, i, j>(rng, {ni, n3});  // other type
    auto d = nax_test::random_array<float, j, i>(rng, {n4, ni});
    // Value at j along the joined axis: which operand and where inside it.
    auto pick = [&](const index_map& x, index_t jj, auto&&... ops) -> double {
      double result = 0;
      bool found = false;
      auto try_one = [&](const auto& op) {
        index_t len = op.template extent<j>();
        if (!found && jj < len) {
          result = static_cast<double>(at(op, with(x, {{"j", jj}})));
          found = true;
        }
        jj -= found ? 0 : len;
      };
      (try_one(ops), ...);
      REQUIRE(found);
      return result;
    };
    auto two = nax::concatenate<j>(a, b);
    static_assert(std::is_same_v<axes_of<decltype(two)>, nax::axes<i, j>>);
    nax::Array<float, j, i> out2 = two;
    CHECK(out2.extent<j>() == n1 + n2);
    nax_test::check_all(out2, [&](const index_map& x) { return pick(x, x.at("j"), a, b); }, 0, 0);

    auto three = nax::concatenate<j>(b, c, a);
    static_assert(std::is_same_v<value_of<decltype(three)>, double>);
    static_assert(std::is_same_v<axes_of<decltype(three)>, nax::axes<j, i>>);
    nax::Array<double, i, j> out3 = three;
    nax_test::check_all(out3, [&](const index_map& x) { return pick(x, x.at("j"), b, c, a); }, 0, 0);

    nax::Array<double, i, j> out4 = nax::concatenate<j>(a, b * 2.f, c, d);
    nax_test::check_all(out4, [&](const index_map& x) {
      index_t jj = x.at("j");
      if (jj >= n1 && jj < n1 + n2) return 2.0 * at(b, with(x, {{"j", jj - n1}}));
      return pick(x, jj, a, b, c, d);
    }, 0, 0);

    // Along i instead (the operands all have i).
    nax::Array<float, i, j> along_i = nax::concatenate<i>(a, nax::rename<k, i>(nax::rename<i, k>(a)));
    CHECK(along_i.extent<i>() == 2 * ni);
    nax_test::check_all(along_i, [&](const index_map& x) {
      return at(a, with(x, {{"i", x.at("i") % (ni ? ni : 1)}}));
    }, 0, 0);
  }
  nax::Array<float, i, j> a({2, 3});
  nax::Array<float, j, i> b({4, 5});
  nax_test::check_shape_error([&] { (void)nax::concatenate<j>(a, b); }, {"'i'", "concatenate", "2", "5"});
  nax::Array<float, i, j> c({2, 1}), bad({3, 1});
  nax_test::check_shape_error([&] { (void)nax::concatenate<j>(a, c, bad); }, {"'i'", "2", "3"});
  CHECK_NOTHROW((void)nax::concatenate<j>(a, c));
}

TEST_CASE("stack: a new first axis; operands in different orders; extent errors") {
  nax_test::random_source rng(37);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.sizes({"i", "j"});
    auto a = nax_test::random_array_of<double, nax::axes<i, j>>(rng, sizes);
    auto b = nax_test::random_array_of<double, nax::axes<j, i>>(rng, sizes);
    auto s = nax::stack<k>(a, b, a - b);
    static_assert(std::is_same_v<axes_of<decltype(s)>, nax::axes<k, i, j>>);
    nax::Array<double, j, k, i> out = s;
    CHECK(out.extent<k>() == 3);
    nax_test::check_all(out, [&](const index_map& x) {
      index_t kk = x.at("k");
      return kk == 0 ? at(a, x) : (kk == 1 ? at(b, x) : at(a, x) - at(b, x));
    });
    nax::Array<double, k, i, j> one = nax::stack<k>(b);
    CHECK(one.extent<k>() == 1);
    nax_test::check_all(one, [&](const index_map& x) { return at(b, x); }, 0, 0);
  }
  nax::Array<float, i, j> a({2, 3});
  nax::Array<float, j, i> b({3, 4});
  nax_test::check_shape_error([&] { (void)nax::stack<k>(a, b); }, {"'i'", "stack", "2", "4"});
}

TEST_CASE("broadcast_to: new axes with given extents; existing ones must match") {
  nax_test::random_source rng(38);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.sizes({"i", "j", "k"});
    auto a = nax_test::random_array_of<float, nax::axes<j>>(rng, sizes);
    auto e = nax::broadcast_to<k, j, i>(a, nax_test::extents_in<nax::axes<k, j, i>>(sizes));
    static_assert(std::is_same_v<axes_of<decltype(e)>, nax::axes<k, j, i>>);
    nax::Array<float, i, j, k> out = e;
    nax_test::check_sizes(out, sizes);
    nax_test::check_all(out, [&](const index_map& x) { return at(a, x); }, 0, 0);
    // Of an expression, then used in arithmetic with an operand that has all three.
    auto c = nax_test::random_array_of<float, nax::axes<i, k, j>>(rng, sizes);
    nax::Array<float, k, i, j> sum = c + nax::broadcast_to<j, i>(a * 3.f, {sizes["j"], sizes["i"]});
    nax_test::check_all(sum, [&](const index_map& x) { return at(c, x) + at(a, x) * 3.f; });
  }
  nax::Array<float, j> a({3});
  nax_test::check_shape_error([&] { (void)nax::broadcast_to<i, j>(a, {2, 4}); }, {"'j'", "3", "4"});
  nax_test::check_shape_error([&] { (void)nax::broadcast_to<i, j>(a, {-1, 3}); }, {"negative extent"});
  auto zero = nax::eval(nax::broadcast_to<i, j>(a, {0, 3}));
  CHECK(zero.size() == 0);
}

TEST_CASE("axis_index: int32 indices along an axis, broadcast by name and relaid out") {
  nax_test::random_source rng(39);
  for (int trial = 0; trial < 8; ++trial) {
    auto sizes = rng.sizes({"i", "j"}, 8);
    index_t ni = sizes["i"], nj = sizes["j"];
    auto idx = nax::axis_index<i>(ni);
    static_assert(std::is_same_v<value_of<decltype(idx)>, std::int32_t>);
    static_assert(std::is_same_v<axes_of<decltype(idx)>, nax::axes<i>>);
    auto a = nax_test::random_array_of<std::int32_t, nax::axes<j, i>>(rng, sizes);
    nax::Array<std::int32_t, i, j> out = a + idx * 100 - nax::axis_index<j>(nj);
    nax_test::check_all(out, [&](const index_map& x) {
      return at(a, x) + static_cast<std::int32_t>(x.at("i")) * 100 - static_cast<std::int32_t>(x.at("j"));
    }, 0, 0);
    // Slicing and splitting an index expression give the source indices.
    index_t begin = rng.integer(0, ni), step = rng.integer(1, 3);
    nax::Array<std::int32_t, i> sliced = nax::slice<i>(nax::axis_index<i>(ni), begin, ni, step);
    nax_test::check_all(sliced, [&](const index_map& x) { return static_cast<std::int32_t>(begin + x.at("i") * step); }, 0, 0);
    nax::Array<std::int32_t, p, o> split = nax::split<i, o, p>(nax::axis_index<i>(ni * 2), 2);
    nax_test::check_all(split, [&](const index_map& x) { return static_cast<std::int32_t>(x.at("o") * 2 + x.at("p")); }, 0, 0);
  }
  auto wide = nax::eval(nax::axis_index<i, std::int64_t>(3));
  static_assert(std::is_same_v<value_of<decltype(wide)>, std::int64_t>);
  CHECK(wide(2) == 2);
  CHECK_THROWS_AS((void)nax::axis_index<i>(-1), nax::shape_error);
  CHECK_THROWS_AS(((void)nax::axis_index<i, std::int8_t>(300)), nax::shape_error);
  CHECK_NOTHROW(((void)nax::axis_index<i, std::int8_t>(128)));
  CHECK_THROWS_AS(((void)nax::axis_index<i, std::int8_t>(129)), nax::shape_error);
  CHECK_NOTHROW(((void)nax::axis_index<i, std::int8_t>(0)));
  // floating point: exact up to 2^digits (float's max() once made every extent fail)
  nax::Array<double, i> real = nax::axis_index<i, double>(4) * 0.5;
  CHECK(real(3) == 1.5);
  CHECK_NOTHROW(((void)nax::axis_index<i, float>((index_t(1) << 24) + 1)));
  CHECK_THROWS_AS(((void)nax::axis_index<i, float>((index_t(1) << 24) + 2)), nax::shape_error);
}

TEST_CASE("compositions: slice of split of transpose, merge of slice, and round trips") {
  nax_test::random_source rng(40);
  for (int trial = 0; trial < 15; ++trial) {
    index_t inner = rng.nonzero_extent(3), outer = rng.extent(4), ni = rng.extent(4);
    auto a = nax_test::random_array<double, i, j>(rng, {ni, outer * inner});
    // transpose -> split j -> slice the outer part with a step.
    index_t ob = rng.integer(0, outer), oe = rng.integer(ob, outer), os = rng.integer(1, 2);
    auto e = nax::slice<o>(nax::split<j, o, p>(nax::transpose<j, i>(a), inner), ob, oe, os);
    static_assert(std::is_same_v<axes_of<decltype(e)>, nax::axes<o, p, i>>);
    nax::Array<double, i, p, o> out = e;
    CHECK(out.extent<o>() == (oe - ob + os - 1) / os);
    nax_test::check_all(out, [&](const index_map& x) {
      return at(a, {{"i", x.at("i")}, {"j", (ob + x.at("o") * os) * inner + x.at("p")}});
    }, 0, 0);

    // split then merge is the identity; merge of a slice (not contiguous) reads right.
    nax::Array<double, i, j> round = nax::merge<o, p, j>(nax::split<j, o, p>(a, inner));
    CHECK(std::equal(round.begin(), round.end(), a.begin(), a.end()));
    index_t jb = rng.integer(0, outer * inner);
    nax::Array<double, m> merged = nax::merge<i, j, m>(nax::slice<j>(a, jb, outer * inner, 2));
    index_t kept = (outer * inner - jb + 1) / 2;
    CHECK(merged.size() == ni * kept);
    nax_test::check_all(merged, [&](const index_map& x) {
      index_t mm = x.at("m");
      return at(a, {{"i", mm / kept}, {"j", jb + (mm % kept) * 2}});
    }, 0, 0);

    // rename + concatenate + slice: the second half of concatenate(a, a) is a again.
    auto twice = nax::concatenate<k>(nax::rename<j, k>(a), nax::rename<j, k>(a * 2.0));
    nax::Array<double, k, i> second = nax::slice<k>(twice, outer * inner, 2 * outer * inner);
    nax_test::check_all(second, [&](const index_map& x) { return 2.0 * at(a, {{"i", x.at("i")}, {"j", x.at("k")}}); }, 0, 0);

    // broadcast_to then slice with a step along the new axis, then stack.
    auto row = nax_test::random_array<float, j>(rng, {outer * inner});
    nax::Array<float, k, o, j> s = nax::stack<k>(nax::slice<o>(nax::broadcast_to<o, j>(row, {5, outer * inner}), 1, 5, 2),
                                                 nax::broadcast_to<j, o>(row * 2.f, {outer * inner, 2}));
    nax_test::check_all(s, [&](const index_map& x) { return at(row, x) * (x.at("k") == 0 ? 1.f : 2.f); }, 0, 0);
  }
}

// Last in the file (and in test_expr) because it crashed (segfault) when written: /tmp/nax_bugs.md.
TEST_CASE("merge with a zero extent on either merged axis gives an empty axis") {
  auto check_case = [](index_t ni, index_t nj, index_t nk) {
    CAPTURE(ni);
    CAPTURE(nj);
    CAPTURE(nk);
    nax::Array<float, i, j, k> a({ni, nj, nk});
    nax::Array<float, k, m> adjacent = nax::merge<i, j, m>(a);
    CHECK(adjacent.extent<m>() == ni * nj);
    nax::Array<float, j, m> reversed = nax::merge<k, i, m>(a);
    CHECK(reversed.extent<m>() == nk * ni);
    nax::Array<float, m, i> of_transpose = nax::merge<k, j, m>(nax::transpose<k, j, i>(a) + 1.f);
    CHECK(of_transpose.extent<m>() == nk * nj);
    nax::Array<float, k, m> of_slice = nax::merge<i, j, m>(nax::slice<j>(a, 0, nj, 2));
    CHECK(of_slice.extent<m>() == ni * ((nj + 1) / 2));
  };
  check_case(2, 0, 3);
  check_case(0, 3, 2);
  check_case(2, 3, 0);
  check_case(0, 0, 0);
  check_case(1, 0, 1);
}
