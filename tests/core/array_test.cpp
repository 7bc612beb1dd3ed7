// Array and ArrayView (core/array.hpp, core/array_view.hpp, core/print.hpp): construction,
// the filled constructors, checked element access, extent and size errors, strided views,
// writing into views, printing, copies, moves and value-semantics reassignment. Expected
// values come from row-major offsets computed here, not from nax's own indexing.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);

using nax::index_t;
using nax_test::index_map;

template <class T>
void check_zero_filled_construction(nax_test::random_source& rng) {
  for (int trial = 0; trial < 8; ++trial) {
    auto e = rng.extents<3>();
    nax::Array<T, i, j, k> x(e);
    CHECK(x.extents() == e);
    CHECK(x.size() == e[0] * e[1] * e[2]);
    CHECK(x.template extent<i>() == e[0]);
    CHECK(x.template extent<j>() == e[1]);
    CHECK(x.template extent<k>() == e[2]);
    // Row-major in declared order; a zero extent counts as 1 for the strides outside it.
    index_t s2 = 1, s1 = e[2] ? e[2] : 1, s0 = s1 * (e[1] ? e[1] : 1);
    CHECK(x.strides() == std::array<index_t, 3>{s0, s1, s2});
    CHECK(reinterpret_cast<std::uintptr_t>(x.data()) % 64 == 0);
    CHECK(x.end() - x.begin() == x.size());
    for (T v : x) CHECK(v == T{});
  }
}
}  // namespace

TEST_CASE("Array(extents) is zero-filled, row-major in declared order, 64-byte aligned") {
  nax_test::random_source rng(1);
  check_zero_filled_construction<float>(rng);
  check_zero_filled_construction<double>(rng);
  check_zero_filled_construction<std::int32_t>(rng);
  check_zero_filled_construction<std::uint8_t>(rng);
  check_zero_filled_construction<bool>(rng);
}

TEST_CASE("default construction: rank 0 holds one zero, higher ranks are empty") {
  nax::Array<double> scalar;
  CHECK(scalar.size() == 1);
  CHECK(scalar.item() == 0.0);
  nax::Array<float, i, j> empty;
  CHECK(empty.size() == 0);
  CHECK(empty.extents() == std::array<index_t, 2>{0, 0});
  CHECK(empty.begin() == empty.end());
}

TEST_CASE("construction from values: initializer list and vector, row-major; wrong count throws") {
  nax::Array<float, i, j> x({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  CHECK(x(0, 0) == 1.f);
  CHECK(x(0, 2) == 3.f);
  CHECK(x(1, 0) == 4.f);
  CHECK(x(1, 2) == 6.f);

  nax_test::random_source rng(2);
  for (int trial = 0; trial < 10; ++trial) {
    auto e = rng.extents<2>();
    std::vector<double> values(static_cast<std::size_t>(e[0] * e[1]));
    for (auto& v : values) v = rng.value<double>();
    nax::Array<double, i, j> y(e, values);
    for (index_t a = 0; a < e[0]; ++a)
      for (index_t b = 0; b < e[1]; ++b) CHECK(y(a, b) == values[static_cast<std::size_t>(a * e[1] + b)]);
    CHECK(std::vector<double>(y.begin(), y.end()) == values);
  }

  nax_test::check_shape_error([] { nax::Array<float, i, j>({2, 3}, {1.f, 2.f}); }, {"2 values", "(i=2, j=3)", "6"});
  nax_test::check_shape_error([] { nax::Array<int, i>({2}, std::vector<int>{1, 2, 3}); }, {"3 values", "(i=2)"});
  nax::Array<int, i> none({0}, std::vector<int>{});
  CHECK(none.size() == 0);
}

TEST_CASE("zeros, ones, full and arange") {
  nax_test::random_source rng(3);
  for (int trial = 0; trial < 8; ++trial) {
    auto e = rng.extents<2>();
    auto z = nax::zeros<double, i, j>(e[0], e[1]);
    auto o = nax::ones<float, j, i>(e[0], e[1]);
    auto f = nax::full<std::int16_t, i, j>(std::int16_t(-7), e[0], e[1]);
    auto b = nax::full<bool, i, j>(true, e[0], e[1]);
    static_assert(std::is_same_v<decltype(z), nax::Array<double, i, j>>);
    static_assert(std::is_same_v<decltype(o), nax::Array<float, j, i>>);
    CHECK(z.extents() == e);
    CHECK(o.extents() == e);  // extents are in the declared order: j first here
    CHECK(o.extent<j>() == e[0]);
    CHECK(f.extents() == e);
    CHECK(b.size() == e[0] * e[1]);
    for (double v : z) CHECK(v == 0.0);
    for (float v : o) CHECK(v == 1.f);
    for (std::int16_t v : f) CHECK(v == -7);
    for (bool v : b) CHECK(v);

    index_t n = rng.extent(9);
    auto r = nax::arange<std::int32_t, k>(n);
    auto rd = nax::arange<double, k>(n);
    static_assert(std::is_same_v<decltype(r), nax::Array<std::int32_t, k>>);
    REQUIRE(r.size() == n);
    for (index_t m = 0; m < n; ++m) {
      CHECK(r.data()[m] == m);
      CHECK(rd.data()[m] == static_cast<double>(m));
    }
  }
  CHECK(nax::full<double>(2.5).item() == 2.5);
  CHECK(nax::zeros<float>().item() == 0.f);
  CHECK(nax::ones<int>().item() == 1);
}

TEST_CASE("checked element access reads and writes row-major storage; out of range throws") {
  nax_test::random_source rng(4);
  for (int trial = 0; trial < 10; ++trial) {
    auto e = rng.extents<3>(4);
    auto x = nax_test::random_array<float, i, j, k>(rng, e);
    const auto& cx = x;
    for (index_t a = 0; a < e[0]; ++a)
      for (index_t b = 0; b < e[1]; ++b)
        for (index_t c = 0; c < e[2]; ++c) {
          index_t offset = (a * e[1] + b) * e[2] + c;
          CHECK(x(a, b, c) == x.data()[offset]);
          CHECK(cx(a, b, c) == x.data()[offset]);
          CHECK(x.view()(a, b, c) == x.data()[offset]);
          x(a, b, c) = static_cast<float>(offset);
          CHECK(x.data()[offset] == static_cast<float>(offset));
        }
    // Every index out of range on each axis, in turn.
    index_t in0 = 0, in1 = 0, in2 = 0;
    CHECK_THROWS_AS(x(e[0], in1, in2), nax::shape_error);
    CHECK_THROWS_AS(x(in0, e[1], in2), nax::shape_error);
    CHECK_THROWS_AS(x(in0, in1, e[2]), nax::shape_error);
    CHECK_THROWS_AS(x(-1, in1, in2), nax::shape_error);
    CHECK_THROWS_AS(cx(in0, in1, index_t{-1}), nax::shape_error);
  }
  nax::Array<int, i, j> y({2, 3});
  nax_test::check_shape_error([&] { (void)y(1, 3); }, {"index 3", "'j'", "extent 3"});
  nax_test::check_shape_error([&] { (void)y(-1, 0); }, {"index -1", "'i'", "extent 2"});
  nax_test::check_shape_error([&] { (void)y.view()(2, 0); }, {"index 2", "'i'", "extent 2"});
}

TEST_CASE("negative extents and element counts past 64 bits throw shape_error") {
  nax_test::check_shape_error([] { nax::Array<float, i, j>({3, -1}); }, {"negative extent -1", "(i=3, j=-1)"});
  nax_test::check_shape_error([] { nax::zeros<float, i>(-2); }, {"negative extent -2"});
  index_t big = index_t{1} << 32;
  nax_test::check_shape_error([&] { nax::Array<float, i, j, k>({big, big, 4}); }, {"size overflow"});
  nax_test::check_shape_error([&] { nax::Array<float, i, j>({std::numeric_limits<index_t>::max(), 2}); },
                              {"size overflow"});
  // Fits an index but not memory: 2^62 doubles are 2^65 bytes.
  nax_test::check_shape_error([] { nax::Array<double, i>({index_t{1} << 62}); }, {"size overflow"});
  // A zero extent makes any other extent fine.
  nax::Array<float, i, j> empty({0, std::numeric_limits<index_t>::max()});
  CHECK(empty.size() == 0);
  // Views check too.
  float dummy = 0;
  nax_test::check_shape_error([&] { nax::ArrayView<float, i, j>(&dummy, {big, big}); }, {"size overflow"});
  nax_test::check_shape_error([&] { nax::ArrayView<float, i>(&dummy, {-3}, {1}); }, {"negative extent"});
}

TEST_CASE("views with arbitrary strides read the elements their strides name") {
  nax_test::random_source rng(5);
  for (int trial = 0; trial < 10; ++trial) {
    auto e = rng.nonzero_extents<2>();
    auto base = nax_test::random_array<double, k>(rng, {4 * e[0] * e[1] + 8});
    // Column-major, every other element, with an offset.
    index_t offset = rng.integer(0, 3);
    std::array<index_t, 2> strides{2, 2 * e[0]};
    nax::ArrayView<double, i, j> v(base.data() + offset, e, strides);
    CHECK(v.extent<i>() == e[0]);
    CHECK(v.stride<j>() == 2 * e[0]);
    CHECK(v.size() == e[0] * e[1]);
    for (index_t a = 0; a < e[0]; ++a)
      for (index_t b = 0; b < e[1]; ++b) CHECK(v(a, b) == base.data()[offset + 2 * a + 2 * e[0] * b]);
    // Evaluating a strided view gives a contiguous copy in the destination's order.
    nax::Array<double, j, i> copy = v;
    for (index_t a = 0; a < e[0]; ++a)
      for (index_t b = 0; b < e[1]; ++b) CHECK(copy.data()[b * e[0] + a] == base.data()[offset + 2 * a + 2 * e[0] * b]);
    // A view of mutable data converts to a view of const data.
    nax::ArrayView<const double, i, j> cv = v;
    CHECK(cv.data() == v.data());
    CHECK(cv.strides() == v.strides());
  }
  // Negative strides: a reversed view.
  nax::Array<int, k> r({5}, {0, 1, 2, 3, 4});
  nax::ArrayView<int, k> reversed(r.data() + 4, {5}, {-1});
  nax::Array<int, k> copy = reversed;
  CHECK(std::vector<int>(copy.begin(), copy.end()) == std::vector<int>{4, 3, 2, 1, 0});
}

TEST_CASE("assign writes an expression into a strided sub-block and nothing else") {
  nax_test::random_source rng(6);
  for (int trial = 0; trial < 12; ++trial) {
    auto outer = rng.nonzero_extents<2>(6);
    auto parent = nax_test::random_array<float, i, j>(rng, outer);
    const std::vector<float> before(parent.begin(), parent.end());
    // A block [r0, r0 + n0) x [c0, c0 + n1), with a row step.
    index_t r0 = rng.integer(0, outer[0] - 1), c0 = rng.integer(0, outer[1] - 1);
    index_t row_step = rng.integer(1, 2);
    index_t n0 = (outer[0] - r0 + row_step - 1) / row_step, n1 = rng.integer(0, outer[1] - c0);
    nax::ArrayView<float, i, j> block(parent.data() + r0 * outer[1] + c0, {n0, n1}, {row_step * outer[1], 1});
    auto source = nax_test::random_array<float, j, i>(rng, {n1, n0});  // other axis order: by name
    block.assign(source * 2.f + 1.f);
    for (index_t a = 0; a < outer[0]; ++a)
      for (index_t b = 0; b < outer[1]; ++b) {
        bool inside = a >= r0 && (a - r0) % row_step == 0 && (a - r0) / row_step < n0 && b >= c0 && b < c0 + n1;
        float expected = inside ? source.data()[(b - c0) * n0 + (a - r0) / row_step] * 2.f + 1.f
                                : before[static_cast<std::size_t>(a * outer[1] + b)];
        CHECK(parent.data()[a * outer[1] + b] == expected);
      }
  }
}

TEST_CASE("assign into a view with different extents throws, naming the axis and both extents") {
  nax::Array<double, i, j> x({3, 4});
  nax::Array<double, j, i> wrong({5, 3});
  nax_test::check_shape_error([&] { x.view().assign(wrong); }, {"'j'", "4", "5"});
  nax::Array<double, i, j> also_wrong({2, 4});
  nax_test::check_shape_error([&] { x.view().assign(also_wrong + 1.0); }, {"'i'", "3", "2"});
  for (double v : x) CHECK(v == 0.0);  // nothing written
}

TEST_CASE("printing: axes with extents, then values nested by axis") {
  auto print = [](const auto& a) {
    std::ostringstream out;
    out << a;
    return out.str();
  };
  CHECK(print(nax::Array<int, i, j>({2, 3}, {1, 2, 3, 4, 5, 6})) == "(i=2, j=3)\n[[1, 2, 3],\n [4, 5, 6]]");
  CHECK(print(nax::Array<float, k>({3}, {0.5f, -1.f, 2.f})) == "(k=3)\n[0.5, -1, 2]");
  CHECK(print(nax::Array<std::int8_t, k>({2}, {std::int8_t(-3), std::int8_t(65)})) == "(k=2)\n[-3, 65]");
  CHECK(print(nax::Array<std::uint8_t, k>({1}, {std::uint8_t(200)})) == "(k=1)\n[200]");
  CHECK(print(nax::Array<bool, k>({2}, {true, false})) == "(k=2)\n[true, false]");
  CHECK(print(nax::Array<int, i>({0})) == "(i=0)\n[]");
  CHECK(print(nax::Array<double>({}, {1.5})) == "()\n1.5");
  CHECK(print(nax::Array<int, i, j, k>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})) ==
        "(i=2, j=2, k=2)\n[[[1, 2],\n  [3, 4]],\n [[5, 6],\n  [7, 8]]]");
  // A view prints in its own axis order, following its strides.
  nax::Array<int, i, j> x({2, 3}, {1, 2, 3, 4, 5, 6});
  nax::ArrayView<const int, j, i> transposed(x.data(), {3, 2}, {1, 3});
  CHECK(print(transposed) == "(j=3, i=2)\n[[1, 4],\n [2, 5],\n [3, 6]]");
}

TEST_CASE("copies are deep; moves transfer the storage") {
  nax_test::random_source rng(7);
  auto e = rng.nonzero_extents<2>();
  auto x = nax_test::random_array<double, i, j>(rng, e);
  const std::vector<double> original(x.begin(), x.end());

  nax::Array<double, i, j> copy = x;
  CHECK(copy.data() != x.data());
  CHECK(copy.extents() == x.extents());
  CHECK(std::vector<double>(copy.begin(), copy.end()) == original);
  copy(0, 0) += 1.0;
  CHECK(x(0, 0) == original[0]);

  nax::Array<double, i, j> assigned({1, 1});
  assigned = x;
  CHECK(assigned.extents() == e);
  CHECK(assigned.data() != x.data());
  CHECK(std::vector<double>(assigned.begin(), assigned.end()) == original);
  assigned = assigned;  // self-assignment keeps the values
  CHECK(std::vector<double>(assigned.begin(), assigned.end()) == original);

  const double* storage = x.data();
  nax::Array<double, i, j> moved = std::move(x);
  CHECK(moved.data() == storage);
  CHECK(moved.extents() == e);
  nax::Array<double, i, j> move_assigned;
  move_assigned = std::move(moved);
  CHECK(move_assigned.data() == storage);
  CHECK(std::vector<double>(move_assigned.begin(), move_assigned.end()) == original);
}

TEST_CASE("a moved-from array is valid: consistent size and usable as a destination") {
  nax::Array<float, i> x({3}, {1.f, 2.f, 3.f});
  nax::Array<float, i> y = std::move(x);
  // Valid but unspecified: whatever extents it reports must be backed by storage.
  CHECK((x.size() == 0 || x.data() != nullptr));
  index_t counted = 0;
  if (x.size() == 0 || x.data() != nullptr) {
    for (float v : x) counted += v == v ? 1 : 1;
    CHECK(counted == x.size());
    // Value-semantics reassignment of a moved-from array (same extents as before the move).
    x = y * 2.f;
    CHECK(x.extents() == std::array<index_t, 1>{3});
    CHECK(x(0) == 2.f);
    CHECK(x(2) == 6.f);
  }
}

TEST_CASE("value-semantics reassignment takes the expression's extents, by name") {
  nax_test::random_source rng(8);
  nax::Array<float, i, j> x({2, 2});
  for (int trial = 0; trial < 10; ++trial) {
    auto e = rng.extents<2>();
    auto y = nax_test::random_array<float, j, i>(rng, {e[1], e[0]});
    const float* before = x.data();
    bool same_extents = x.extents() == e;
    x = y + 1.f;  // y's axis order is (j, i): a transpose by name
    CHECK(x.extents() == e);
    if (same_extents && e[0] * e[1] > 0) CHECK(x.data() == before);  // reused in place
    for (index_t a = 0; a < e[0]; ++a)
      for (index_t b = 0; b < e[1]; ++b) CHECK(x.data()[a * e[1] + b] == y.data()[b * e[0] + a] + 1.f);
  }
  // From a view of another order, and constructing from an expression.
  auto z = nax_test::random_array<double, k, i>(rng, {3, 2});
  nax::Array<double, i, k> t(z.view());
  for (index_t a = 0; a < 2; ++a)
    for (index_t c = 0; c < 3; ++c) CHECK(t.data()[a * 3 + c] == z.data()[c * 2 + a]);
  nax::Array<double, i, k> u = nax::eval(z * 3.0);
  for (index_t a = 0; a < 2; ++a)
    for (index_t c = 0; c < 3; ++c) CHECK(u.data()[a * 3 + c] == z.data()[c * 2 + a] * 3.0);
}

TEST_CASE("item() on rank-0 arrays, views and expressions") {
  nax::Array<int> s({}, {42});
  CHECK(s.item() == 42);
  CHECK(s.view().item() == 42);
  CHECK(nax::item(s + 1) == 43);
  CHECK((s * 2).item() == 84);
  nax::Array<int> t = s - 2;
  CHECK(t.item() == 40);
}
