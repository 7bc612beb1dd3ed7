// Sums of products that the host runs as contractions (backend/host/sum_of_products.hpp):
// sum<k>(a * b) where both factors carry k and each has an axis of its own, also with
// elementwise work fused into a factor, over two summed axes, in random axis orders and
// extents (0 and 1 included: an empty one goes to the reduction), and inside vmap as psum of
// a product over the mapped axis (a row-parallel layer). The sums that are not contractions
// (one factor has no axis of its own, integers) keep the reduction. All against plain loops.
#include "../support/reference.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(m);

using nax::index_t;
using nax_test::at;
using nax_test::check_all;
using nax_test::index_map;

template <class T>
constexpr double tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-12;

// sum over k (and m when given) of f(a) * b at idx, in double.
template <class A, class B, class F>
double reference_sum(const A& a, const B& b, index_map idx, index_t nk, index_t nm, F&& f) {
  double total = 0;
  for (index_t q = 0; q < nk; ++q)
    for (index_t r = 0; r < nm; ++r) {
      idx["k"] = q;
      idx["m"] = r;
      total += f(double(at(a, idx))) * double(at(b, idx));
    }
  return total;
}

template <class T, class AOrder, class BOrder>
void check_orders(nax_test::random_source& rng) {
  const index_map sizes{{"i", rng.extent(9)}, {"j", rng.extent(9)}, {"k", rng.extent(9)}};
  INFO("extents " << nax_test::describe(sizes));
  auto a = nax_test::random_array_of<T, AOrder>(rng, sizes);
  auto b = nax_test::random_array_of<T, BOrder>(rng, sizes);
  nax::Array<T, i, j> plain = nax::sum<k>(a * b);
  check_all(plain, [&](const index_map& at) { return reference_sum(a, b, at, sizes.at("k"), 1, [](double v) { return v; }); },
            tolerance<T>, tolerance<T>);
  // Elementwise work in a factor (evaluated once per element of a, then multiplied).
  nax::Array<T, j, i> fused = nax::sum<k>(nax::tanh(a * T(2)) * (b + T(1)));
  check_all(fused, [&](const index_map& at) {
    index_map idx = at;
    double total = 0;
    for (index_t q = 0; q < sizes.at("k"); ++q) {
      idx["k"] = q;
      total += std::tanh(2 * double(nax_test::at(a, idx))) * (double(nax_test::at(b, idx)) + 1);
    }
    return total;
  }, tolerance<T>, tolerance<T>);
}

}  // namespace

TEST_CASE_TEMPLATE("sum<k>(a * b) with outer axes on both sides equals the plain loop, in every axis order", T, float,
                   double) {
  nax_test::random_source rng(77);
  for (int trial = 0; trial < 6; ++trial) {
    check_orders<T, nax::axes<i, k>, nax::axes<k, j>>(rng);
    check_orders<T, nax::axes<k, i>, nax::axes<k, j>>(rng);
    check_orders<T, nax::axes<i, k>, nax::axes<j, k>>(rng);
    check_orders<T, nax::axes<k, i>, nax::axes<j, k>>(rng);
  }
}

TEST_CASE("a sum over two axes of a product with a shared batch axis equals the plain loop") {
  NAX_AXIS(batch);
  nax_test::random_source rng(5);
  for (int trial = 0; trial < 8; ++trial) {
    const index_map sizes{{"i", rng.nonzero_extent(6)}, {"j", rng.extent(6)}, {"k", rng.nonzero_extent(6)}, {"m", rng.nonzero_extent(6)},
                          {"batch", rng.extent(4)}};
    INFO("extents " << nax_test::describe(sizes));
    auto a = nax_test::random_array_of<double, nax::axes<m, batch, i, k>>(rng, sizes);
    auto c = nax_test::random_array_of<double, nax::axes<k, j, batch, m>>(rng, sizes);
    nax::Array<double, batch, i, j> r = nax::sum<k, m>(a * c);
    check_all(r, [&](const index_map& at) {
      return reference_sum(a, c, at, sizes.at("k"), sizes.at("m"), [](double v) { return v; });
    }, 1e-12, 1e-12);
  }
}

TEST_CASE("sums of products that are not contractions keep the reduction, and agree with the plain loop") {
  nax_test::random_source rng(9);
  for (int trial = 0; trial < 6; ++trial) {
    const index_map sizes{{"i", rng.extent(7)}, {"j", rng.extent(7)}, {"k", rng.extent(7)}};
    INFO("extents " << nax_test::describe(sizes));
    auto a = nax_test::random_array_of<float, nax::axes<i, k>>(rng, sizes);
    auto c = nax_test::random_array_of<float, nax::axes<k, i>>(rng, sizes);
    auto v = nax_test::random_array_of<float, nax::axes<j>>(rng, sizes);
    auto n = nax_test::random_array_of<int, nax::axes<k, j>>(rng, sizes, -5, 5);
    auto ni = nax_test::random_array_of<int, nax::axes<i, k>>(rng, sizes, -5, 5);
    // No outer axis on c's side: row-wise dot products.
    nax::Array<float, i> rows = nax::sum<k>(a * c);
    check_all(rows, [&](const index_map& at) { return reference_sum(a, c, at, sizes.at("k"), 1, [](double x) { return x; }); },
              1e-5, 1e-5);
    // k only in a: sum(a) times v.
    nax::Array<float, i, j> outer = nax::sum<k>(a * v);
    check_all(outer, [&](const index_map& at) { return reference_sum(a, v, at, sizes.at("k"), 1, [](double x) { return x; }); },
              1e-5, 1e-5);
    // Integers: exact, by the reduction.
    nax::Array<int, i, j> exact = nax::sum<k>(ni * n);
    check_all(exact, [&](const index_map& at) {
      return int(reference_sum(ni, n, at, sizes.at("k"), 1, [](double x) { return x; }));
    });
  }
}

TEST_CASE("inside vmap, psum of a product over the mapped axis (a row-parallel layer) equals the plain loop") {
  nax_test::random_source rng(13);
  for (int trial = 0; trial < 6; ++trial) {
    const index_map sizes{{"i", rng.extent(6)}, {"j", rng.nonzero_extent(6)}, {"k", rng.extent(6)}};
    INFO("extents " << nax_test::describe(sizes));
    auto u = nax_test::random_array_of<float, nax::axes<j, i>>(rng, sizes);
    auto w = nax_test::random_array_of<float, nax::axes<k, j>>(rng, sizes);
    auto layer = [](const auto& unit, const auto& weight) { return nax::psum<j>(nax::tanh(unit) * weight); };
    nax::Array<float, j, i, k> r = nax::vmap<j>(layer)(u, w);
    check_all(r, [&](const index_map& at) {
      index_map idx = at;
      double total = 0;
      for (index_t q = 0; q < sizes.at("j"); ++q) {
        idx["j"] = q;
        total += std::tanh(double(nax_test::at(u, idx))) * double(nax_test::at(w, idx));
      }
      return total;
    }, 1e-5, 1e-5);
  }
}

TEST_CASE("inside vmap, the gradient of a row-parallel layer's weight (a product with a broadcast cotangent) equals the plain loop") {
  NAX_AXIS(batch);
  nax_test::random_source rng(21);
  for (int trial = 0; trial < 6; ++trial) {
    const index_map sizes{{"i", rng.nonzero_extent(5)}, {"j", rng.nonzero_extent(5)}, {"k", rng.nonzero_extent(5)},
                          {"batch", rng.nonzero_extent(3)}};
    INFO("extents " << nax_test::describe(sizes));
    auto u = nax_test::random_array_of<double, nax::axes<batch, i, j>>(rng, sizes);
    auto w = nax_test::random_array_of<double, nax::axes<j, k>>(rng, sizes);
    // Per example: loss = sum over i, k of (psum<j>(u * w))^2 / 2, with j mapped: dw[j, k] = sum_i u[i, j] * y[i, k].
    auto dw = [](const auto& unit, const auto& weight) {
      return nax::grad<1>([](const auto& x, const auto& v) {
        return nax::sum(nax::square(nax::psum<j>(x * v))) * 0.5;
      })(unit, weight);
    };
    auto per_example = nax::vmap<batch>(nax::vmap<j>(dw), nax::in_axes(nax::mapped, nax::none));
    nax::Array<double, batch, j, k> g = per_example(u, w);
    check_all(g, [&](const index_map& at) {
      double total = 0;
      index_map idx = at;
      for (index_t a = 0; a < sizes.at("i"); ++a) {
        idx["i"] = a;
        double y = 0;
        index_map inner = idx;
        for (index_t q = 0; q < sizes.at("j"); ++q) {
          inner["j"] = q;
          y += nax_test::at(u, inner) * nax_test::at(w, inner);
        }
        total += nax_test::at(u, idx) * y;
      }
      return total;
    }, 1e-12, 1e-12);
  }
}

namespace {

// sum over m (a batch axis of the contraction) and k (contracted) of a * b at idx, in double.
template <class A, class B>
double reference_dot_sum(const A& a, const B& b, index_map idx, index_t nk, index_t nm) {
  return reference_sum(a, b, std::move(idx), nk, nm, [](double v) { return v; });
}

template <class T, class AOrder, class BOrder, class OutOrder>
void check_sum_of_dot(nax_test::random_source& rng) {
  const index_map sizes{{"i", rng.extent(7)}, {"j", rng.extent(7)}, {"k", rng.extent(7)}, {"m", rng.extent(5)}};
  INFO("extents " << nax_test::describe(sizes));
  auto a = nax_test::random_array_of<T, AOrder>(rng, sizes);
  auto b = nax_test::random_array_of<T, BOrder>(rng, sizes);
  nax_test::array_of<T, OutOrder> r = nax::sum<m>(nax::dot<k>(a, b));
  check_all(r, [&](const index_map& at) { return reference_dot_sum(a, b, at, sizes.at("k"), sizes.at("m")); },
            tolerance<T>, tolerance<T>);
  // m contracted too, written directly: the same numbers.
  nax_test::array_of<T, OutOrder> direct = nax::dot<k, m>(a, b);
  check_all(direct, [&](const index_map& at) { return double(nax_test::at(r, at)); }, tolerance<T>, tolerance<T>);
}

}  // namespace

TEST_CASE_TEMPLATE("sum<m>(dot<k>(a, b)) over a batch axis m (a contraction over k and m) equals the plain loop, in every axis order",
                   T, float, double) {
  nax_test::random_source rng(31);
  for (int trial = 0; trial < 5; ++trial) {
    check_sum_of_dot<T, nax::axes<m, i, k>, nax::axes<k, m, j>, nax::axes<i, j>>(rng);
    check_sum_of_dot<T, nax::axes<i, k, m>, nax::axes<j, m, k>, nax::axes<j, i>>(rng);
    check_sum_of_dot<T, nax::axes<k, m, i>, nax::axes<m, j, k>, nax::axes<i, j>>(rng);
  }
}

TEST_CASE("sums of contractions over an axis that is not a batch axis, or of integers, keep the reduction") {
  nax_test::random_source rng(37);
  for (int trial = 0; trial < 5; ++trial) {
    const index_map sizes{{"i", rng.extent(6)}, {"j", rng.extent(6)}, {"k", rng.extent(6)}, {"m", rng.extent(4)}};
    INFO("extents " << nax_test::describe(sizes));
    auto a = nax_test::random_array_of<double, nax::axes<i, m, k>>(rng, sizes);
    auto b = nax_test::random_array_of<double, nax::axes<k, j, m>>(rng, sizes);
    // Over i, an outer axis of a: sum_i sum_k a[i, m, k] b[k, j, m].
    nax::Array<double, m, j> over_outer = nax::sum<i>(nax::dot<k>(a, b));
    check_all(over_outer, [&](const index_map& at) {
      index_map idx = at;
      double total = 0;
      for (index_t p = 0; p < sizes.at("i"); ++p) {
        idx["i"] = p;
        total += reference_dot_sum(a, b, idx, sizes.at("k"), 1);
      }
      return total;
    }, 1e-12, 1e-12);
    auto ni = nax_test::random_array_of<int, nax::axes<i, m, k>>(rng, sizes, -4, 4);
    auto nj = nax_test::random_array_of<int, nax::axes<k, j, m>>(rng, sizes, -4, 4);
    nax::Array<int, i, j> exact = nax::sum<m>(nax::dot<k>(ni, nj));
    check_all(exact, [&](const index_map& at) { return int(reference_dot_sum(ni, nj, at, sizes.at("k"), sizes.at("m"))); });
  }
}

TEST_CASE("inside vmap, psum over the mapped axis of a contraction (attention's heads on a mesh axis) equals the plain loop") {
  nax_test::random_source rng(41);
  for (int trial = 0; trial < 6; ++trial) {
    const index_map sizes{{"i", rng.extent(6)}, {"j", rng.extent(6)}, {"k", rng.extent(6)}, {"m", rng.nonzero_extent(4)}};
    INFO("extents " << nax_test::describe(sizes));
    auto a = nax_test::random_array_of<float, nax::axes<m, i, k>>(rng, sizes);
    auto b = nax_test::random_array_of<float, nax::axes<k, m, j>>(rng, sizes);
    auto head = [](const auto& x, const auto& w) { return nax::psum<m>(nax::dot<k>(x, w)); };
    nax::Array<float, m, i, j> r = nax::vmap<m>(head)(a, b);
    check_all(r, [&](const index_map& at) { return reference_dot_sum(a, b, at, sizes.at("k"), sizes.at("m")); }, 1e-5, 1e-5);
  }
}
