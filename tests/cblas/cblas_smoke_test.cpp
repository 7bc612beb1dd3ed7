// The cblas area is built with NAX_USE_CBLAS and linked to OpenBLAS (tests/CMakeLists.txt).
// This smoke test checks that wiring: cblas.h is found and cblas_sgemm links and computes.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cblas.h>

#ifndef NAX_USE_CBLAS
#error "tests/cblas must be compiled with NAX_USE_CBLAS defined"
#endif

TEST_CASE("cblas_sgemm multiplies two 2x2 row-major matrices") {
  float const a[4] = {1, 2,
                      3, 4};
  float const b[4] = {5, 6,
                      7, 8};
  float c[4] = {-1, -1, -1, -1};
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
  CHECK(c[0] == 19);
  CHECK(c[1] == 22);
  CHECK(c[2] == 43);
  CHECK(c[3] == 50);
}
