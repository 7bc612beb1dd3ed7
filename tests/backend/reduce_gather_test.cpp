// Reductions whose producer reads a leaf that is not contiguous along the row being reduced
// (reduce_into in backend/host/reduce.hpp): a transposed operand, or a broadcast one whose row
// a fold made (b in sum(x + b) over (batch, out = 1): stride 0 along the merged row). Such
// leaves are gathered a tile of gather_columns at a time; checked against plain loops on rows
// shorter than, equal to and longer than a tile, serial and parallel (2^15 elements and more),
// reducing and keeping the innermost axis.
#include "../support/reference.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace {

NAX_AXIS(batch);
NAX_AXIS(out);
NAX_AXIS(feature);

using nax::index_t;
using nax_test::fill_random;

}  // namespace

TEST_CASE("a reduction over a row with a broadcast operand (stride 0 after a fold) equals the plain loop") {
  nax_test::random_source g(31);
  // 16 is the shortest row gathered, 128 one tile, 40000 crosses the parallel threshold.
  for (index_t n : {0, 1, 15, 16, 127, 128, 129, 1000, 40000}) {
    INFO("batch = " << n);
    nax::Array<double, batch, out> x({n, 1}), y({n, 1});
    nax::Array<double, out> b({1});
    fill_random(x, g), fill_random(y, g), fill_random(b, g);
    const double loss = nax::mean(nax::square(x + b - y)).item();
    nax::Array<double, out> gb = nax::sum<batch>((x + b - y) * 2.0);  // keeps out = 1: reduced
    double want = 0, want_gb = 0, want_max = -INFINITY;
    for (index_t q = 0; q < n; ++q) {
      const double r = x(q, 0) + b(0) - y(q, 0);
      want += r * r;
      want_gb += 2.0 * r;
      want_max = std::max(want_max, x(q, 0) * b(0));
    }
    CHECK(gb(0) == doctest::Approx(want_gb).epsilon(1e-12));
    if (n == 0) {  // (as JAX: the mean of nothing is NaN; max has no identity)
      CHECK(std::isnan(loss));
      CHECK_THROWS_AS(nax::max(x * b).item(), nax::shape_error);
    } else {
      CHECK(loss == doctest::Approx(want / double(n)).epsilon(1e-12));
      CHECK(nax::max(x * b).item() == want_max);
    }
  }
}

TEST_CASE("a reduction reading a transposed operand, innermost axis reduced or kept, equals the plain loop") {
  nax_test::random_source g(32);
  for (index_t n : {1, 17, 300}) {
    for (index_t f : {1, 16, 130}) {
      INFO("batch = " << n << ", feature = " << f);
      nax::Array<double, batch, feature> x({n, f});
      nax::Array<double, feature, batch> t({f, n});  // read as (batch, feature): strided along feature
      fill_random(x, g), fill_random(t, g);
      nax::Array<double, batch> rows = nax::sum<feature>(x * t);    // reduces the innermost axis
      nax::Array<double, feature> cols = nax::sum<batch>(x - t);    // keeps it: whole rows accumulated
      const double all = nax::sum(x * t).item();
      double want_all = 0;
      for (index_t q = 0; q < n; ++q) {
        double s = 0;
        for (index_t p = 0; p < f; ++p) s += x(q, p) * t(p, q);
        CHECK(rows(q) == doctest::Approx(s).epsilon(1e-12));
        want_all += s;
      }
      for (index_t p = 0; p < f; ++p) {
        double s = 0;
        for (index_t q = 0; q < n; ++q) s += x(q, p) - t(p, q);
        CHECK(cols(p) == doctest::Approx(s).epsilon(1e-12));
      }
      CHECK(all == doctest::Approx(want_all).epsilon(1e-12));
    }
  }
}
