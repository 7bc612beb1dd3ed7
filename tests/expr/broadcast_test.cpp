// Broadcasting by name (expr/elementwise.hpp) and assignment by name (backend/host/assign.hpp):
// operands with 2-4 axes in different orders, written into destinations of every (or a
// random) axis order, against reference loops over named indices; extent mismatches throw
// shape_error naming the axis and both extents; no size-1 broadcasting.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <type_traits>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(l);

using nax::index_t;
using nax_test::at;
using nax_test::index_map;

template <class E>
using axes_of = typename std::remove_cvref_t<E>::axes_type;
template <class E>
using value_of = typename std::remove_cvref_t<E>::value_type;
}  // namespace

TEST_CASE("result axes: the first operand's, then the others' new ones, in order of appearance") {
  using A = nax::Array<float, i, j>;
  using B = nax::Array<float, k, j>;
  using C = nax::Array<float, j>;
  using D = nax::Array<float, l, i>;
  using S = nax::Array<float>;
  static_assert(std::is_same_v<axes_of<decltype(A() + B())>, nax::axes<i, j, k>>);
  static_assert(std::is_same_v<axes_of<decltype(B() + A())>, nax::axes<k, j, i>>);
  static_assert(std::is_same_v<axes_of<decltype(C() * A())>, nax::axes<j, i>>);
  static_assert(std::is_same_v<axes_of<decltype(A() + B() + C())>, nax::axes<i, j, k>>);
  static_assert(std::is_same_v<axes_of<decltype(C() - D() + B())>, nax::axes<j, l, i, k>>);
  static_assert(std::is_same_v<axes_of<decltype(S() + C())>, nax::axes<j>>);
  static_assert(std::is_same_v<axes_of<decltype(2.f * S())>, nax::axes<>>);
  static_assert(std::is_same_v<axes_of<decltype(nax::where(C() > 0.f, D(), S()))>, nax::axes<j, l, i>>);
  // eval keeps the expression's order.
  static_assert(std::is_same_v<decltype(nax::eval(B() + A())), nax::Array<float, k, j, i>>);
}

TEST_CASE("a(i,j) + b(k,j) * c(j) into every order of (i, j, k), float and double") {
  nax_test::random_source rng(21);
  auto run = [&](auto type_tag) {
    using T = decltype(type_tag);
    for (int trial = 0; trial < 6; ++trial) {
      auto sizes = rng.sizes({"i", "j", "k"});
      auto a = nax_test::random_array_of<T, nax::axes<i, j>>(rng, sizes);
      auto b = nax_test::random_array_of<T, nax::axes<k, j>>(rng, sizes);
      auto c = nax_test::random_array_of<T, nax::axes<j>>(rng, sizes);
      auto expected = [&](const index_map& x) { return at(a, x) + at(b, x) * at(c, x); };
      nax_test::for_each_permutation<i, j, k>([&](auto order) {
        using Out = nax_test::array_of<T, decltype(order)>;
        Out out = a + b * c;
        nax_test::check_sizes(out, sizes);
        nax_test::check_all(out, expected);
        // Again into an array that already has these extents (the in-place path).
        out = c * b + a;
        nax_test::check_all(out, expected);
      });
    }
  };
  run(float{});
  run(double{});
}

TEST_CASE("four axes: a(i,j) * b(k,l) - c(l,i) + d(j) + scalar array, into random orders") {
  nax_test::random_source rng(22);
  for (int trial = 0; trial < 8; ++trial) {
    auto sizes = rng.sizes({"i", "j", "k", "l"}, 4);
    auto a = nax_test::random_array_of<double, nax::axes<i, j>>(rng, sizes);
    auto b = nax_test::random_array_of<float, nax::axes<k, l>>(rng, sizes);
    auto c = nax_test::random_array_of<double, nax::axes<l, i>>(rng, sizes);
    auto d = nax_test::random_array_of<float, nax::axes<j>>(rng, sizes);
    nax::Array<double> s({}, {rng.value<double>()});
    auto e = a * b - c + d + s;
    static_assert(std::is_same_v<axes_of<decltype(e)>, nax::axes<i, j, k, l>>);
    static_assert(std::is_same_v<value_of<decltype(e)>, double>);
    auto expected = [&](const index_map& x) {
      return at(a, x) * double(at(b, x)) - at(c, x) + double(at(d, x)) + s.item();
    };
    // Four orders of the 24, chosen to put each axis innermost once.
    nax::Array<double, l, k, j, i> o1 = e;
    nax::Array<double, k, i, l, j> o2 = e;
    nax::Array<double, i, j, l, k> o3 = e;
    nax::Array<double, j, l, k, i> o4 = e;
    nax_test::check_all(o1, expected);
    nax_test::check_all(o2, expected);
    nax_test::check_all(o3, expected);
    nax_test::check_all(o4, expected);
    nax_test::check_sizes(o2, sizes);
  }
}

TEST_CASE("three-axis operands in different orders, into random destination orders") {
  nax_test::random_source rng(23);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.sizes({"i", "j", "k"});
    auto a = nax_test::random_array_of<float, nax::axes<k, i, j>>(rng, sizes);
    auto b = nax_test::random_array_of<float, nax::axes<j, k, i>>(rng, sizes);
    auto c = nax_test::random_array_of<float, nax::axes<i, k>>(rng, sizes);
    auto expected = [&](const index_map& x) { return at(a, x) * at(b, x) - at(c, x); };
    nax_test::for_random_permutations<i, j, k>(rng, 2, [&](auto order) {
      nax_test::array_of<float, decltype(order)> out = a * b - c;
      nax_test::check_all(out, expected);
    });
  }
}

TEST_CASE("broadcasting over zero and one extents, and strided views as operands") {
  nax_test::random_source rng(24);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.sizes({"i", "j", "k"}, 4);
    // b is read through a view with padding between its rows.
    auto a = nax_test::random_array_of<double, nax::axes<i, j>>(rng, sizes);
    index_t nk = sizes["k"], nj = sizes["j"];
    auto storage = nax_test::random_array<double, l>(rng, {nk * (nj + 2) + 1});
    nax::ArrayView<double, k, j> b(storage.data(), {nk, nj}, {nj + 2, 1});
    nax::Array<double, k, i, j> out = a - b;
    nax_test::check_all(out, [&](const index_map& x) {
      return at(a, x) - storage.data()[x.at("k") * (nj + 2) + x.at("j")];
    });
  }
}

TEST_CASE("equal names need equal extents: shape_error names the axis and both extents") {
  nax::Array<float, i, j> a({2, 3});
  nax::Array<float, j> c4({4});
  nax::Array<float, k, j> b({5, 3});
  nax_test::check_shape_error([&] { (void)(a + c4); }, {"'j'", "3", "4"});
  nax_test::check_shape_error([&] { (void)(c4 * a); }, {"'j'", "4", "3"});
  // Deep inside a larger expression, on an axis only inner operands share.
  nax::Array<float, k> k7({7});
  nax_test::check_shape_error([&] { (void)(a + nax::exp(b - k7)); }, {"'k'", "5", "7"});
  // No size-1 broadcasting: extent 1 against 3 is a mismatch, and so is 0 against 1.
  nax::Array<float, j> c1({1});
  nax_test::check_shape_error([&] { (void)(a + c1); }, {"'j'", "3", "1"});
  nax::Array<float, i> i0({0}), i1({1});
  nax_test::check_shape_error([&] { (void)(i0 + i1); }, {"'i'", "0", "1"});
  // Random mismatches on a random axis.
  nax_test::random_source rng(25);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.sizes({"i", "j"});
    index_t other = sizes["j"] + rng.integer(1, 3);
    nax::Array<double, i, j> x(nax_test::extents_in<nax::axes<i, j>>(sizes));
    nax::Array<double, j, k> y({other, 2});
    nax_test::check_shape_error([&] { (void)(x * y); },
                                {"'j'", std::to_string(sizes["j"]), std::to_string(other)});
  }
  // Matching extents do not throw.
  nax::Array<float, k, j> b_ok({0, 3});
  CHECK_NOTHROW((void)(a + b_ok));
}

TEST_CASE("assignment by name: a different axis order is a transpose, not an error") {
  nax_test::random_source rng(26);
  for (int trial = 0; trial < 8; ++trial) {
    auto sizes = rng.sizes({"i", "j", "k"});
    auto x = nax_test::random_array_of<std::int32_t, nax::axes<i, j, k>>(rng, sizes);
    nax::Array<std::int32_t, k, i, j> y = x;
    nax_test::check_all(y, [&](const index_map& idx) { return at(x, idx); });
    nax::Array<std::int32_t, j, k, i> z({1, 1, 1});
    z = y;  // from an Array of another order: reallocates to the right extents
    nax_test::check_sizes(z, sizes);
    nax_test::check_all(z, [&](const index_map& idx) { return at(x, idx); });
    // Writing into an existing view of another order.
    nax::Array<std::int64_t, k, j, i> w(nax_test::extents_in<nax::axes<k, j, i>>(sizes));
    w.view().assign(x * 2);  // int32 into int64: widening is fine
    nax_test::check_all(w, [&](const index_map& idx) { return std::int64_t{at(x, idx)} * 2; });
  }
}

TEST_CASE("assignment into a view with other extents throws, naming the axis and both extents") {
  nax_test::random_source rng(27);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.sizes({"i", "j"});
    nax::Array<float, i, j> dest(nax_test::extents_in<nax::axes<i, j>>(sizes));
    std::fill(dest.begin(), dest.end(), 9.f);
    // A source of the other order, with one axis one longer.
    bool grow_i = rng.chance(0.5);
    index_t si = sizes["i"] + (grow_i ? 1 : 0), sj = sizes["j"] + (grow_i ? 0 : 1);
    nax::Array<float, j, i> src({sj, si});
    const char* axis = grow_i ? "'i'" : "'j'";
    std::string have = std::to_string(grow_i ? sizes["i"] : sizes["j"]), got = std::to_string(grow_i ? si : sj);
    nax_test::check_shape_error([&] { dest.view().assign(src + 1.f); }, {axis, have, got});
    for (float v : dest) CHECK(v == 9.f);  // untouched
    // An Array (value semantics) takes the new extents instead.
    dest = src + 1.f;
    CHECK(dest.extent<i>() == si);
    CHECK(dest.extent<j>() == sj);
  }
}

TEST_CASE("large extents: the tiled and OpenMP-parallel loops give the same values") {
  nax_test::random_source rng(28);
  // An inner extent past one tile (2^14), and enough elements (> 2^15) for the parallel path.
  const index_t ni = 3, nj = 40000 + rng.integer(0, 100), nk = 3;
  auto a = nax_test::random_array<float, i, j>(rng, {ni, nj});
  auto b = nax_test::random_array<float, j>(rng, {nj});
  auto c = nax_test::random_array<float, k, i>(rng, {nk, ni});
  nax::Array<float, k, i, j> out = a * b + c;  // inner axis j: unit stride
  nax::Array<float, j, k, i> out_t = a * b + c;  // inner axis i: strided reads
  std::size_t bad = 0, bad_t = 0;
  for (index_t x = 0; x < ni; ++x)
    for (index_t y = 0; y < nj; ++y)
      for (index_t z = 0; z < nk; ++z) {
        float expected = a.data()[x * nj + y] * b.data()[y] + c.data()[z * ni + x];
        bad += out.data()[(z * ni + x) * nj + y] != expected;
        bad_t += out_t.data()[(y * nk + z) * ni + x] != expected;
      }
  CHECK(bad == 0);
  CHECK(bad_t == 0);
}
