// Contractions by name, nax::dot<K...>(a, b), against a naive einsum loop over names
// (tests/support/einsum_reference.hpp): matmul in every storage order, batched matmul with
// the batch axes in different positions in each operand, outer and inner products, several
// contracted axes, operands that are expressions, exact integer products, mixed element
// types, sizes around the GEMM kernel's tiles and blocks, empty axes, and extent mismatches.
#include "../support/einsum_reference.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace {

NAX_AXIS(batch);
NAX_AXIS(batch2);
NAX_AXIS(row);
NAX_AXIS(col);
NAX_AXIS(red);
NAX_AXIS(red2);

using einsum_ref::check_dot;
using einsum_ref::check_dot_random;
using einsum_ref::tensor;
using nax::axes;
using nax::index_t;
using real = long double;

nax_test::random_source seeded(std::size_t a, std::size_t b = 0) {
  return nax_test::random_source(einsum_ref::mix(a, b, 3));
}

}  // namespace

TEST_CASE_TEMPLATE("matmul dot<red>((row, red), (red, col)) for sizes around the GEMM blocks", T, float, double,
                   std::int32_t, std::int64_t) {
  auto rng = seeded(1, sizeof(T) + std::is_integral_v<T>);
  auto draw = [&](const std::string&) { return einsum_ref::gemm_extent(rng); };
  check_dot_random<T, T, axes<row, red>, axes<red, col>, red>(rng, 14, draw);
  // Past the depth block (kc = 256) and the row block (mc = 144 floats, 72 doubles).
  auto large = [](const std::string& n) -> index_t { return n == "row" ? 150 : n == "red" ? 300 : 37; };
  check_dot_random<T, T, axes<row, red>, axes<red, col>, red>(rng, 1, large);
}

TEST_CASE_TEMPLATE("matmul with transposed storage: dot<red>((red, row), (col, red))", T, float, double) {
  auto rng = seeded(2, sizeof(T));
  auto draw = [&](const std::string&) { return einsum_ref::gemm_extent(rng); };
  check_dot_random<T, T, axes<red, row>, axes<col, red>, red>(rng, 12, draw);
}

TEST_CASE_TEMPLATE("batched matmul with the batch axis in a different position in each operand", T, float, double,
                   std::int32_t) {
  auto rng = seeded(3, sizeof(T) + std::is_integral_v<T>);
  auto draw = [&](const std::string& n) {
    return n == "batch" ? einsum_ref::small_extent(rng) : rng.integer(0, 1) ? einsum_ref::small_extent(rng) : 17;
  };
  // Result (batch, row, col): a's remaining axes, then b's new one.
  check_dot_random<T, T, axes<batch, row, red>, axes<red, batch, col>, red>(rng, 12, draw);
}

TEST_CASE("batched matmul: batch axes last, first, in the middle, and two batch axes in opposite orders") {
  auto rng = seeded(4);
  auto draw = [&](const std::string&) { return einsum_ref::small_extent(rng); };
  check_dot_random<float, float, axes<row, red, batch>, axes<batch, col, red>, red>(rng, 10, draw);
  check_dot_random<double, double, axes<red, batch, row>, axes<col, red, batch>, red>(rng, 10, draw);
  check_dot_random<float, float, axes<batch, batch2, row, red>, axes<batch2, red, col, batch>, red>(rng, 10, draw);
  // Batch axes whose strides do not flatten into one (an attention's (batch, pos, head, head_dim)
  // read with batch axes (batch, head)): read in place as two groups, a GEMM per group of the
  // first; and large enough that the groups are shared among threads.
  check_dot_random<float, float, axes<batch, row, batch2, red>, axes<batch, col, batch2, red>, red>(rng, 10, draw);
  check_dot_random<double, double, axes<row, batch, red, batch2>, axes<batch2, col, batch, red>, red>(rng, 10, draw);
  auto large = [](const std::string& n) -> index_t {
    return n == "batch" ? 3 : n == "batch2" ? 5 : n == "red" ? 50 : 40;
  };
  check_dot_random<float, float, axes<batch, row, batch2, red>, axes<batch, red, batch2, col>, red>(rng, 2, large);
}

TEST_CASE_TEMPLATE("outer products: no contracted axis", T, float, std::int32_t) {
  auto rng = seeded(5, sizeof(T) + std::is_integral_v<T>);
  auto draw = [&](const std::string&) { return einsum_ref::gemm_extent(rng); };
  check_dot_random<T, T, axes<row>, axes<col>>(rng, 10, draw);  // no K
  // A shared axis that is not contracted is a batch axis: elementwise in batch, outer in row and col.
  auto small = [&](const std::string&) { return einsum_ref::small_extent(rng); };
  check_dot_random<T, T, axes<batch, row>, axes<col, batch>>(rng, 10, small);
}

TEST_CASE_TEMPLATE("inner products: every axis contracted gives rank 0", T, float, double, std::int64_t) {
  auto rng = seeded(6, sizeof(T) + std::is_integral_v<T>);
  auto draw = [&](const std::string&) { return einsum_ref::gemm_extent(rng); };
  check_dot_random<T, T, axes<row, red>, axes<red, row>, row, red>(rng, 10, draw);
  if constexpr (std::is_same_v<T, float>) {
    check_dot_random<T, T, axes<row>, axes<row>, row>(rng, 10, draw);
    nax::Array<float, row> a({3}, {1, 2, 3}), b({3}, {4, -5, 6});
    CHECK(nax::dot<row>(a, b).item() == 12.f);
    CHECK(nax::item(nax::dot<row>(a, b)) == 12.f);
  }
}

TEST_CASE_TEMPLATE("several contracted axes, named in either order, with and without batch axes", T, float, double) {
  auto rng = seeded(7, sizeof(T));
  auto draw = [&](const std::string&) { return einsum_ref::small_extent(rng); };
  check_dot_random<T, T, axes<row, red, red2>, axes<red2, col, red>, red, red2>(rng, 10, draw);
  check_dot_random<T, T, axes<red, batch, red2, row>, axes<batch, red2, red, col>, red2, red>(rng, 10, draw);
}

TEST_CASE("mixed element types promote: float with double, int32 with float, int32 with int64, bool with bool") {
  auto rng = seeded(8);
  auto draw = [&](const std::string&) { return einsum_ref::gemm_extent(rng); };
  using L = axes<row, red>;
  using Rt = axes<red, col>;
  check_dot_random<float, double, L, Rt, red>(rng, 6, draw);        // -> double
  check_dot_random<std::int32_t, float, L, Rt, red>(rng, 6, draw);  // -> float
  check_dot_random<std::int32_t, std::int64_t, L, Rt, red>(rng, 6, draw);  // -> int64
  check_dot_random<bool, bool, L, Rt, red>(rng, 6, draw);           // -> int32: counts
  static_assert(std::is_same_v<decltype(nax::dot<red>(std::declval<nax::Array<float, row, red>&>(),
                                                      std::declval<nax::Array<double, red, col>&>()))::value_type,
                               double>);
}

TEST_CASE("integer products are exact where float and double would round") {
  // 2^24 + 1 is not a float; (2^26 + 1)^2 is not a double.
  nax::Array<std::int32_t, row, red> a({1, 2}, {(1 << 24) + 1, 1});
  nax::Array<std::int32_t, red, col> b({2, 1}, {1, 2});
  CHECK(nax::eval(nax::dot<red>(a, b))(0, 0) == (1 << 24) + 3);
  const std::int64_t big = (std::int64_t{1} << 26) + 1;
  nax::Array<std::int64_t, red> x({3}, {big, big, -1}), y({3}, {big, -1, big});
  CHECK(nax::dot<red>(x, y).item() == big * big - 2 * big);
}

TEST_CASE("operands that are expressions: sums, scaled arrays, transposes, strided slices, reductions") {
  auto rng = seeded(9);
  for (int trial = 0; trial < 10; ++trial) {
    const index_t m = einsum_ref::gemm_extent(rng), n = einsum_ref::gemm_extent(rng),
                  k = einsum_ref::gemm_extent(rng), p = einsum_ref::small_extent(rng);
    nax_test::index_map sizes{{"row", m}, {"col", n}, {"red", k}, {"batch", p}};
    CAPTURE(nax_test::describe(sizes));
    auto a1 = einsum_ref::dot_operand<float, axes<row, red>>(rng, sizes);
    auto a2 = einsum_ref::dot_operand<float, axes<red, row>>(rng, sizes);
    auto b = einsum_ref::dot_operand<float, axes<red, col>>(rng, sizes);
    const auto r1 = einsum_ref::from_nax<real>(a1), r2 = einsum_ref::from_nax<real>(a2),
               rb = einsum_ref::from_nax<real>(b);
    const auto plus = [](real x, real y) { return x + y; };
    // (a1 + a2) has axes (row, red); b read transposed as (col, red).
    check_dot<float, red>(a1 + a2, nax::transpose<col, red>(b), einsum_ref::map2(r1, r2, plus),
                          einsum_ref::permute(rb, {"col", "red"}));
    // Scaled by a number, in double.
    auto bd = nax::cast<double>(b);
    check_dot<double, red>(nax::cast<double>(a1) * 2.0, bd,
                           einsum_ref::map1(r1, [](real x) { return 2 * x; }), rb);
    // Strided slices: every second element of a (2k+1)-long axis, every third of a 3k-long one.
    nax_test::index_map wide{{"row", m}, {"col", n}, {"red", 2 * k + 1}};
    nax_test::index_map wider{{"row", m}, {"col", n}, {"red", 3 * k}};
    auto s1 = einsum_ref::dot_operand<float, axes<row, red>>(rng, wide);
    auto s2 = einsum_ref::dot_operand<float, axes<col, red>>(rng, wider);
    check_dot<float, red>(nax::slice<red>(s1, 1, 2 * k + 1, 2), nax::slice<red>(s2, 0, 3 * k, 3),
                          einsum_ref::slice(einsum_ref::from_nax<real>(s1), "red", 1, 2 * k + 1, 2),
                          einsum_ref::slice(einsum_ref::from_nax<real>(s2), "red", 0, 3 * k, 3));
    // A reduction as an operand: sum<batch>(c) with c (batch, red, row), against (red, col).
    auto c = einsum_ref::dot_operand<float, axes<batch, red, row>>(rng, sizes);
    const auto rc = einsum_ref::reduce(einsum_ref::from_nax<real>(c), {"batch"}, einsum_ref::reduction::sum);
    {
      auto result = nax::eval(nax::dot<red>(nax::sum<batch>(c), b));
      auto expected = einsum_ref::einsum(rc, rb, {"red"}, {"row", "col"});
      // Bound: from |c| summed over batch, then |.| |b| over red.
      auto abs_c = einsum_ref::reduce(einsum_ref::map1(einsum_ref::from_nax<real>(c), [](real v) { return std::abs(v); }),
                                      {"batch"}, einsum_ref::reduction::sum);
      auto bound = einsum_ref::einsum(abs_c, einsum_ref::map1(rb, [](real v) { return std::abs(v); }), {"red"},
                                      {"row", "col"});
      for (auto& v : bound.values) v *= 2 * std::numeric_limits<float>::epsilon() * (k + p + 4);
      einsum_ref::check_close(result, expected, &bound);
      // The same reduction transposed (a relayout of a materialised node, read in place), and b
      // broadcast over batch (stride 0 along it) for a batched product: dot<red> of
      // (batch, row, red) and (batch, red, col) with the same b in every batch.
      einsum_ref::check_close(nax::eval(nax::dot<red>(nax::transpose<row, red>(nax::sum<batch>(c)), b)), expected,
                              &bound);
      auto bb = nax::broadcast_to<batch, red, col>(b, {p, k, n});
      tensor rbb = einsum_ref::from_nax<real>(nax::eval(bb));
      check_dot<float, red>(nax::transpose<batch, row, red>(c), bb,
                            einsum_ref::permute(einsum_ref::from_nax<real>(c), {"batch", "row", "red"}), rbb);
    }
  }
}

TEST_CASE("a contraction inside a larger expression, and assigned to an array of another axis order") {
  auto rng = seeded(10);
  nax_test::index_map sizes{{"row", 17}, {"col", 5}, {"red", 67}};
  auto a = einsum_ref::dot_operand<double, axes<row, red>>(rng, sizes);
  auto b = einsum_ref::dot_operand<double, axes<red, col>>(rng, sizes);
  auto bias = einsum_ref::dot_operand<double, axes<col>>(rng, sizes);
  nax::Array<double, col, row> y = nax::dot<red>(a, b) * 2.0 + bias;
  auto expected = einsum_ref::map2(
      einsum_ref::map1(einsum_ref::einsum(einsum_ref::from_nax<real>(a), einsum_ref::from_nax<real>(b), {"red"},
                                          {"row", "col"}),
                       [](real v) { return 2 * v; }),
      einsum_ref::from_nax<real>(bias), [](real x, real z) { return x + z; });
  einsum_ref::tensor<real> bound(expected.names, expected.extents, real(1e-12));
  einsum_ref::check_close(y, expected, &bound);
}

TEST_CASE("empty axes: contracted extent 0 gives zeros, an empty outer or batch axis an empty result") {
  nax::Array<float, batch, row, red> a({2, 3, 0});
  nax::Array<float, red, batch, col> b({0, 2, 4});
  auto z = nax::eval(nax::dot<red>(a, b));
  CHECK((z.extents() == std::array<index_t, 3>{2, 3, 4}));
  for (float v : z) CHECK(v == 0.f);
  nax::Array<std::int64_t, row, red> c({0, 5});
  nax::Array<std::int64_t, red, col> d({5, 3});
  auto e = nax::eval(nax::dot<red>(c, d));
  CHECK(e.size() == 0);
  CHECK(e.extent<col>() == 3);
  nax::Array<float, red> none({0});
  CHECK(nax::dot<red>(none, none).item() == 0.f);
}

TEST_CASE("an extent mismatch of a contracted or batch axis throws shape_error naming the axis and both extents") {
  nax::Array<float, row, red> a({2, 3});
  nax::Array<float, red, col> b({4, 5});
  nax_test::check_shape_error([&] { (void)nax::dot<red>(a, b); }, {"'red'", "3", "4"});
  nax::Array<float, batch, row, red> p({2, 3, 4});
  nax::Array<float, red, batch, col> q({4, 5, 6});
  nax_test::check_shape_error([&] { (void)nax::dot<red>(p, q); }, {"'batch'", "2", "5"});
  // Mismatch found through an expression operand too (a sliced axis).
  nax::Array<float, red, col> r({6, 5});
  nax_test::check_shape_error([&] { (void)nax::dot<red>(a, nax::slice<red>(r, 0, 6, 3)); }, {"'red'"});
  CHECK_NOTHROW((void)nax::dot<red>(a, nax::slice<red>(r, 0, 6, 2)));
}
