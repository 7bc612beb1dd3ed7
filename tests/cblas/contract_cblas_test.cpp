// nax::dot through the host backend's CBLAS path (this folder is compiled with NAX_USE_CBLAS
// and linked to OpenBLAS): float and double contractions go to cblas_sgemm / cblas_dgemm,
// strided operands are packed or transposed first, other types keep the built-in loop.
// Same reference as tests/expr/contract_test.cpp (tests/support/einsum_reference.hpp).
#include "../support/einsum_reference.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#if !defined(NAX_USE_CBLAS)
#error "tests/cblas is compiled with NAX_USE_CBLAS"
#endif

namespace {
NAX_AXIS(batch);
NAX_AXIS(row);
NAX_AXIS(col);
NAX_AXIS(red);
NAX_AXIS(red2);

using einsum_ref::check_dot;
using einsum_ref::check_dot_random;
using nax::axes;
using nax::index_t;
using real = long double;
}  // namespace

TEST_CASE_TEMPLATE("CBLAS: matmul in row-major and transposed storage, sizes around the blocks", T, float, double) {
  nax_test::random_source rng(einsum_ref::mix(sizeof(T), 101));
  auto draw = [&](const std::string&) { return einsum_ref::gemm_extent(rng); };
  check_dot_random<T, T, axes<row, red>, axes<red, col>, red>(rng, 10, draw);
  check_dot_random<T, T, axes<red, row>, axes<col, red>, red>(rng, 10, draw);
  auto large = [](const std::string& n) -> index_t { return n == "row" ? 150 : n == "red" ? 300 : 37; };
  check_dot_random<T, T, axes<row, red>, axes<red, col>, red>(rng, 1, large);
}

TEST_CASE_TEMPLATE("CBLAS: batched matmul with the batch axis in different positions, several contracted axes", T,
                   float, double) {
  nax_test::random_source rng(einsum_ref::mix(sizeof(T), 102));
  auto draw = [&](const std::string&) { return einsum_ref::small_extent(rng); };
  check_dot_random<T, T, axes<batch, row, red>, axes<red, batch, col>, red>(rng, 10, draw);
  check_dot_random<T, T, axes<row, red, red2>, axes<red2, col, red>, red, red2>(rng, 10, draw);
}

TEST_CASE("CBLAS: strided slices and expressions as operands, outer and inner products, int32 falls back") {
  nax_test::random_source rng(103);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t m = einsum_ref::gemm_extent(rng), n = einsum_ref::gemm_extent(rng), k = einsum_ref::gemm_extent(rng);
    nax_test::index_map wide{{"row", m}, {"col", n}, {"red", 2 * k + 1}};
    nax_test::index_map plain{{"row", m}, {"col", n}, {"red", k}};
    CAPTURE(nax_test::describe(plain));
    auto a = einsum_ref::dot_operand<float, axes<row, red>>(rng, wide);
    auto b = einsum_ref::dot_operand<float, axes<col, red>>(rng, plain);
    auto ra = einsum_ref::from_nax<real>(a), rb = einsum_ref::from_nax<real>(b);
    // Every second element of a's contracted axis: no unit stride along red.
    check_dot<float, red>(nax::slice<red>(a, 0, 2 * k, 2), b, einsum_ref::slice(ra, "red", 0, 2 * k, 2), rb);
    check_dot<float, red>(nax::slice<red>(a, 1, 2 * k + 1, 2) * 2.f - 1.f, nax::transpose<red, col>(b),
                          einsum_ref::map1(einsum_ref::slice(ra, "red", 1, 2 * k + 1, 2), [](real v) { return 2 * v - 1; }),
                          einsum_ref::permute(rb, {"red", "col"}));
    auto rowv = einsum_ref::dot_operand<double, axes<row>>(rng, plain);
    auto colv = einsum_ref::dot_operand<double, axes<col>>(rng, plain);
    check_dot<double>(rowv, colv, einsum_ref::from_nax<real>(rowv), einsum_ref::from_nax<real>(colv));
    check_dot<double, row>(rowv, rowv, einsum_ref::from_nax<real>(rowv), einsum_ref::from_nax<real>(rowv));
  }
  auto draw = [&](const std::string&) { return einsum_ref::gemm_extent(rng); };
  check_dot_random<std::int32_t, std::int32_t, axes<row, red>, axes<red, col>, red>(rng, 6, draw);
  check_dot_random<float, double, axes<row, red>, axes<red, col>, red>(rng, 6, draw);
}

TEST_CASE("CBLAS: an extent mismatch still throws shape_error naming the axis") {
  nax::Array<double, row, red> a({2, 3});
  nax::Array<double, red, col> b({4, 5});
  nax_test::check_shape_error([&] { (void)nax::dot<red>(a, b); }, {"'red'", "3", "4"});
}
