// Loop folding (fold_inner_axes in lower/fold.hpp, can_fold / fold in
// lower/evaluators.hpp): loop axes merge into the innermost one when every operand's strides
// allow it, so that short trailing axes do not cost a row's setup per element. Checked
// against plain loops on shapes made to fold and not to fold: size-1 trailing axes,
// broadcasts (stride 0), transposed and sliced operands, a strided output, reductions that
// keep a size-1 innermost axis, samplers and axis_index.
#include <nax/nax.hpp>
#include <nax/random/random.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);

using nax::index_t;

template <class A>
void fill(A& a, std::mt19937& g) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (index_t q = 0; q < a.size(); ++q) a.data()[q] = d(g);
}

constexpr index_t sizes_i[] = {1, 5, 37};
constexpr index_t sizes_j[] = {1, 2, 3};
constexpr index_t sizes_k[] = {1, 4};

// The operands of both cases at one shape: a (i, j, k), b (k) broadcast over i and j, and
// t stored (j, i) but read by name (transposed).
struct operands {
  nax::Array<double, i, j, k> a;
  nax::Array<double, k> b;
  nax::Array<double, j, i> t;
  operands(index_t ni, index_t nj, index_t nk, std::mt19937& g) : a({ni, nj, nk}), b({nk}), t({nj, ni}) {
    fill(a, g), fill(b, g), fill(t, g);
  }
};

// body(ni, nj, nk, operands) at every shape of sizes_i x sizes_j x sizes_k.
template <class Body>
void for_each_shape(unsigned seed, Body&& body) {
  std::mt19937 g(seed);
  for (index_t ni : sizes_i)
    for (index_t nj : sizes_j)
      for (index_t nk : sizes_k) {
        INFO("extents " << ni << " x " << nj << " x " << nk);
        body(ni, nj, nk, operands(ni, nj, nk, g), g);
      }
}

}  // namespace

TEST_CASE("elementwise passes over short trailing axes equal plain loops") {
  for_each_shape(11, [](index_t ni, index_t nj, index_t nk, const operands& o, std::mt19937& g) {
        const auto& [a, b, t] = o;
        nax::Array<double, i, j, k> out = a * 2.0 + b - t;
        // The same into every other i of a wider array (a strided output), the rest untouched.
        nax::Array<double, i, j, k> wide({2 * ni, nj, nk});
        for (index_t q = 0; q < wide.size(); ++q) wide.data()[q] = -7.0;
        nax::ArrayView<double, i, j, k> every_other(wide.data(), {ni, nj, nk}, {2 * nj * nk, nk, 1});
        every_other.assign(a * 2.0 + b - t);
        // A sliced operand: every other j of a wider array.
        nax::Array<double, i, j, k> a2({ni, 2 * nj, nk});
        fill(a2, g);
        nax::Array<double, i, j, k> from_slice = nax::slice<j>(a2, 0, 2 * nj, 2) + b;
        for (index_t x = 0; x < ni; ++x)
          for (index_t y = 0; y < nj; ++y)
            for (index_t z = 0; z < nk; ++z) {
              const double want = a(x, y, z) * 2.0 + b(z) - t(y, x);
              CHECK(out(x, y, z) == doctest::Approx(want).epsilon(1e-15));
              CHECK(wide(2 * x, y, z) == doctest::Approx(want).epsilon(1e-15));
              CHECK(wide(2 * x + 1, y, z) == -7.0);
              CHECK(from_slice(x, y, z) == doctest::Approx(a2(x, 2 * y, z) + b(z)).epsilon(1e-15));
            }
  });
}

TEST_CASE("reductions over short trailing axes equal plain loops, kept size-1 innermost axes included") {
  for_each_shape(12, [](index_t ni, index_t nj, index_t nk, const operands& o, std::mt19937&) {
        const auto& [a, b, t] = o;
        const double all = nax::sum(a * b).item();
        nax::Array<double, k> keep_k = nax::sum<i, j>(a - t);  // keeps the innermost axis
        nax::Array<double, j, k> keep_jk = nax::sum<i>(a * b);   // keeps j and the innermost
        nax::Array<double, i> keep_i = nax::max<j, k>(a + b);  // reduces the innermost
        double want_all = 0;
        for (index_t x = 0; x < ni; ++x)
          for (index_t y = 0; y < nj; ++y)
            for (index_t z = 0; z < nk; ++z) want_all += a(x, y, z) * b(z);
        CHECK(all == doctest::Approx(want_all).epsilon(1e-12));
        for (index_t z = 0; z < nk; ++z) {
          double s = 0;
          for (index_t x = 0; x < ni; ++x)
            for (index_t y = 0; y < nj; ++y) s += a(x, y, z) - t(y, x);
          CHECK(keep_k(z) == doctest::Approx(s).epsilon(1e-12));
          for (index_t y = 0; y < nj; ++y) {
            double s2 = 0;
            for (index_t x = 0; x < ni; ++x) s2 += a(x, y, z) * b(z);
            CHECK(keep_jk(y, z) == doctest::Approx(s2).epsilon(1e-12));
          }
        }
        for (index_t x = 0; x < ni; ++x) {
          double m = -INFINITY;
          for (index_t y = 0; y < nj; ++y)
            for (index_t z = 0; z < nk; ++z) m = std::max(m, a(x, y, z) + b(z));
          CHECK(keep_i(x) == m);
        }
  });
}

TEST_CASE("samplers and axis_index over a size-1 trailing axis keep their indices") {
  namespace nr = nax::random;
  for (index_t n : {1, 7, 1000}) {
    INFO("n = " << n);
    // uniform over (i, k = 1) has the linear index of uniform over (i): the same numbers.
    nax::Array<float, i, k> u2 = nr::uniform<i, k>(nr::key(3), {n, 1});
    nax::Array<float, i> u1 = nr::uniform<i>(nr::key(3), {n});
    nax::Array<std::int32_t, i, k> idx = nax::axis_index<i>(n) + nax::zeros<std::int32_t, k>(1);
    for (index_t x = 0; x < n; ++x) {
      CHECK(u2(x, 0) == u1(x));
      CHECK(idx(x, 0) == x);
    }
    // The sum over both axes of (i, k = 1) equals the sum over i.
    CHECK(nax::sum(nr::uniform<double, i, k>(nr::key(4), {n, 1})).item() ==
          doctest::Approx(nax::sum(nr::uniform<double, i>(nr::key(4), {n})).item()).epsilon(1e-12));
  }
}
