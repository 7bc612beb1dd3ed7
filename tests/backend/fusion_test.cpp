// Fusion and materialisation on the host backend, counted with
// nax::detail::host::materialisation_count() (one per reduction / contraction / merge / concat
// node computed): elementwise chains and relayouts materialise nothing; a reduction fuses its
// producer (one node); a reduction or contraction reused by user code is computed once per
// evaluation, also when reused inside other reductions; every evaluation computes afresh.
// Values are checked too, against plain loops.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(m);

using nax::index_t;

// Materialisations since construction.
struct materialisations {
  std::uint64_t start = nax::detail::host::materialisation_count().load();
  std::uint64_t operator()() const { return nax::detail::host::materialisation_count().load() - start; }
};

nax::Array<float, i, j> sample_x(index_t ni = 4, index_t nj = 5) {
  nax::Array<float, i, j> x({ni, nj});
  for (index_t a = 0; a < ni; ++a)
    for (index_t b = 0; b < nj; ++b) x(a, b) = static_cast<float>((a * 7 + b * 3) % 11) / 4.f - 1.f;
  return x;
}

std::vector<double> row_sums(const nax::Array<float, i, j>& x) {
  std::vector<double> out(static_cast<std::size_t>(x.extent<i>()), 0.0);
  for (index_t a = 0; a < x.extent<i>(); ++a)
    for (index_t b = 0; b < x.extent<j>(); ++b) out[a] += x(a, b);
  return out;
}

}  // namespace

TEST_CASE("a reused reduction is computed once: s + s * 2") {
  auto x = sample_x();
  auto s = nax::sum<j>(x);
  materialisations count;
  auto r = nax::eval(s + s * 2.f);
  CHECK(count() == 1);
  auto expected = row_sums(x);
  for (index_t a = 0; a < 4; ++a) CHECK(r(a) == doctest::Approx(3 * expected[a]));
  // A copy of the node is the same node.
  auto s2 = s;
  materialisations again;
  nax::Array<float, i> r2 = s + s2 * s;
  CHECK(again() == 1);
  for (index_t a = 0; a < 4; ++a) CHECK(r2(a) == doctest::Approx(expected[a] + expected[a] * expected[a]));
  // Through item() of a rank-0 expression.
  auto t = nax::sum(x);
  materialisations scalar;
  double total = (t * t + t).item();
  CHECK(scalar() == 1);
  double all = 0;
  for (double v : expected) all += v;
  CHECK(total == doctest::Approx(all * all + all));
}

TEST_CASE("a reused contraction is computed once") {
  nax::Array<double, i, k> a({3, 4});
  nax::Array<double, k, j> b({4, 2});
  for (index_t p = 0; p < 3; ++p)
    for (index_t q = 0; q < 4; ++q) a(p, q) = p + 2.0 * q;
  for (index_t q = 0; q < 4; ++q)
    for (index_t r = 0; r < 2; ++r) b(q, r) = 1.0 - q + r;
  auto d = nax::dot<k>(a, b);
  materialisations count;
  nax::Array<double, j, i> y = d + d * d;
  CHECK(count() == 1);
  for (index_t p = 0; p < 3; ++p)
    for (index_t r = 0; r < 2; ++r) {
      double v = 0;
      for (index_t q = 0; q < 4; ++q) v += a(p, q) * b(q, r);
      CHECK(y(r, p) == doctest::Approx(v + v * v));
    }
}

TEST_CASE("an elementwise chain, with relayouts and broadcasting, materialises nothing") {
  auto x = sample_x(6, 8);
  nax::Array<float, j> w({8});
  for (index_t b = 0; b < 8; ++b) w(b) = 0.5f * static_cast<float>(b);
  materialisations count;
  nax::Array<float, j, i> y = nax::exp(x) * 2.f + w - nax::sqrt(nax::abs(x)) / (1.f + nax::square(x));
  auto z = nax::eval(nax::where(nax::transpose<j, i>(nax::slice<i>(x, 1, 6, 2)) > 0.f, nax::slice<i>(x, 1, 6, 2) + 1.f,
                                nax::rename<i, k>(nax::slice<i>(x, 0, 1)) * 0.f));
  auto u = nax::eval(nax::broadcast_to<m, i, j>(x, {3, 6, 8}) * nax::cast<float>(nax::axis_index<m>(3)));
  CHECK(count() == 0);
  for (index_t a = 0; a < 6; ++a)
    for (index_t b = 0; b < 8; ++b) {
      float v = x(a, b);
      CHECK(y(b, a) == doctest::Approx(std::exp(v) * 2.f + w(b) - std::sqrt(std::abs(v)) / (1.f + v * v)));
      CHECK(u(2, a, b) == doctest::Approx(2.f * v));
    }
  CHECK(z.extent<i>() == 3);
  CHECK(z.extent<k>() == 1);
}

TEST_CASE("a reduction of an elementwise chain materialises exactly one node: the producer is fused") {
  auto x = sample_x(5, 7);
  nax::Array<float, j> y({7});
  for (index_t b = 0; b < 7; ++b) y(b) = 1.f + 0.25f * static_cast<float>(b);
  {
    materialisations count;
    nax::Array<float, i> r = nax::sum<j>(nax::exp(x) * y + 1.f);
    CHECK(count() == 1);
    for (index_t a = 0; a < 5; ++a) {
      double v = 0;
      for (index_t b = 0; b < 7; ++b) v += std::exp(double(x(a, b))) * y(b) + 1.0;
      CHECK(r(a) == doctest::Approx(v).epsilon(1e-5));
    }
  }
  {
    materialisations count;
    auto r = nax::eval(nax::max<i>(nax::transpose<j, i>(x) * 2.f - y));
    CHECK(count() == 1);
    for (index_t b = 0; b < 7; ++b) {
      float best = -1e30f;
      for (index_t a = 0; a < 5; ++a) best = std::max(best, 2.f * x(a, b) - y(b));
      CHECK(r(b) == best);
    }
  }
  {
    materialisations count;
    auto r = nax::eval(nax::mean<j>(nax::square(x)));  // mean = sum * (1 / n): one node
    CHECK(count() == 1);
    CHECK(r.extent<i>() == 5);
  }
  {
    materialisations count;
    auto r = nax::eval(nax::argmax<j>(x * x));
    CHECK(count() == 1);
    CHECK(r.extent<i>() == 5);
  }
}

TEST_CASE("logsumexp computes its max once although the max is used three times") {
  auto x = sample_x(3, 9);
  materialisations count;
  nax::Array<float, i> r = nax::logsumexp<j>(x);
  CHECK(count() == 2);  // the max and the sum
  for (index_t a = 0; a < 3; ++a) {
    double s = 0;
    for (index_t b = 0; b < 9; ++b) s += std::exp(double(x(a, b)));
    CHECK(r(a) == doctest::Approx(std::log(s)).epsilon(1e-5));
  }
}

TEST_CASE("a reduction reused inside other reductions and outside them is still computed once") {
  auto x = sample_x(4, 6);
  auto s = nax::sum<j>(x);  // (i)
  materialisations count;
  nax::Array<float, i> r = s + nax::sum<i>(s * s) + nax::max<i>(s + 1.f);
  CHECK(count() == 3);  // s, the sum over i and the max over i
  auto rows = row_sums(x);
  double sq = 0, best = -1e30;
  for (double v : rows) sq += v * v, best = std::max(best, v + 1);
  for (index_t a = 0; a < 4; ++a) CHECK(r(a) == doctest::Approx(rows[a] + sq + best).epsilon(1e-5));
}

TEST_CASE("contractions: operands that are elementwise expressions are packed, not counted; reductions are") {
  nax::Array<float, i, k> a({3, 5});
  nax::Array<float, k, j> b({5, 2});
  for (index_t p = 0; p < 3; ++p)
    for (index_t q = 0; q < 5; ++q) a(p, q) = static_cast<float>(p - q) / 2.f;
  for (index_t q = 0; q < 5; ++q)
    for (index_t r = 0; r < 2; ++r) b(q, r) = static_cast<float>(q * r) - 1.f;
  {
    materialisations count;
    nax::Array<float, i, j> y = nax::dot<k>(a * 2.f + 1.f, nax::transpose<j, k>(b));
    CHECK(count() == 1);
    for (index_t p = 0; p < 3; ++p)
      for (index_t r = 0; r < 2; ++r) {
        double v = 0;
        for (index_t q = 0; q < 5; ++q) v += (a(p, q) * 2.0 + 1.0) * b(q, r);
        CHECK(y(p, r) == doctest::Approx(v));
      }
  }
  {
    nax::Array<float, m, i, k> c({2, 3, 5});
    for (float& v : c) v = 0.5f;
    materialisations count;
    nax::Array<float, i, j> y = nax::dot<k>(nax::sum<m>(c), b);  // the sum, then the product
    CHECK(count() == 2);
    for (index_t p = 0; p < 3; ++p)
      for (index_t r = 0; r < 2; ++r) {
        double v = 0;
        for (index_t q = 0; q < 5; ++q) v += 1.0 * b(q, r);
        CHECK(y(p, r) == doctest::Approx(v));
      }
  }
}

TEST_CASE("every evaluation computes afresh; the memo does not outlive one evaluation") {
  auto x = sample_x();
  auto s = nax::sum<j>(x);
  materialisations count;
  auto first = nax::eval(s);
  x(0, 0) += 10.f;  // s reads x through a view: the next evaluation sees the change
  auto second = nax::eval(s);
  CHECK(count() == 2);
  CHECK(second(0) == doctest::Approx(first(0) + 10.f));
}

TEST_CASE("in place: y = y - max<j>(y) computes the max once, before overwriting y") {
  auto y = sample_x(3, 4);
  auto original = y;
  materialisations count;
  y = y - nax::max<j>(y);
  CHECK(count() == 1);
  for (index_t a = 0; a < 3; ++a) {
    float best = original(a, 0);
    for (index_t b = 1; b < 4; ++b) best = std::max(best, original(a, b));
    for (index_t b = 0; b < 4; ++b) CHECK(y(a, b) == original(a, b) - best);
  }
}
