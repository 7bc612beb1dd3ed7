// The host GEMM's CBLAS path (this folder is compiled with NAX_USE_CBLAS and linked to
// OpenBLAS): gemm sends float and double to cblas_sgemm / cblas_dgemm, with operands that
// have no leading dimension packed first. Same checks as tests/backend/gemm_test.cpp.
#include "../backend/gemm_reference.hpp"

#include <doctest/doctest.h>

#include <cstdint>

namespace host = nax::detail::host;
using nax::index_t;

#if !defined(NAX_USE_CBLAS)
#error "tests/cblas is compiled with NAX_USE_CBLAS"
#endif

namespace {
const auto dispatched = [](auto&&... args) { host::gemm(args...); };
}  // namespace

TEST_CASE("gemm_cblas_layout finds a leading dimension or says there is none") {
  CBLAS_TRANSPOSE trans;
  int ld = 0;
  CHECK(host::gemm_cblas_layout(3, 4, 4, 1, trans, ld));  // row-major
  CHECK((trans == CblasNoTrans && ld == 4));
  CHECK(host::gemm_cblas_layout(3, 4, 1, 5, trans, ld));  // column-major, padded
  CHECK((trans == CblasTrans && ld == 5));
  CHECK(host::gemm_cblas_layout(1, 4, 0, 1, trans, ld));  // one row: its stride is unused
  CHECK((trans == CblasNoTrans && ld == 4));
  CHECK(host::gemm_cblas_layout(4, 1, 1, 0, trans, ld));  // one column
  CHECK(!host::gemm_cblas_layout(3, 4, 8, 2, trans, ld));   // two non-unit strides
  CHECK(!host::gemm_cblas_layout(3, 4, 2, 1, trans, ld));   // rows overlap
  CHECK(!host::gemm_cblas_layout(3, 4, -4, 1, trans, ld));  // reversed rows
  CHECK(!host::gemm_cblas_layout(3, 4, 0, 1, trans, ld));   // broadcast rows
}

TEST_CASE_TEMPLATE("gemm through CBLAS matches the triple loop for all small sizes", T, float, double, std::int32_t) {
  gemm_reference::check_small_sizes<T>(dispatched);
}

TEST_CASE_TEMPLATE("gemm through CBLAS matches the triple loop for random strided layouts", T, float, double) {
  gemm_reference::check_random_layouts<T>(dispatched, 12, 300);
}

TEST_CASE_TEMPLATE("gemm through CBLAS is right for large and transposed products", T, float, double) {
  gemm_reference::check_block_edges<T>(dispatched);
}

TEST_CASE_TEMPLATE("gemm through CBLAS with K == 0 or alpha == 0 scales C by beta", T, float, double) {
  gemm_reference::check_degenerate<T>(dispatched);
}

TEST_CASE("gemm_builtin and gemm_cblas agree and are both callable with NAX_USE_CBLAS") {
  std::mt19937 rng(6);
  const auto cblas = [](auto&&... args) { host::gemm_cblas(args...); };
  const auto builtin = [](auto&&... args) { host::gemm_builtin(args...); };
  gemm_reference::problem p{2, 33, 17, 129, gemm_reference::column_major()};
  gemm_reference::check_product<double>(cblas, p, 1.0, 0.5, rng);
  gemm_reference::check_product<double>(builtin, p, 1.0, 0.5, rng);
}
