// Collectives over vmapped axes (local operations): psum, pmean, pmax, pmin over one or
// several names and every nesting order of the vmaps (JAX's testCommAssocCollective),
// axis_index, axis_size, all_gather (untiled, tiled, to an unmapped output, of constants),
// psum_scatter (untiled, tiled), ppermute (JAX's cases and random permutations), all_to_all,
// and the run-time errors (bad permutations, extents that do not match the members).
// References are plain loops over the members.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../support/reference.hpp"

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(c);
NAX_AXIS(s);
NAX_AXIS(g);
NAX_AXIS(n);

using nax_test::at;
using nax_test::index_map;
using nax_test::index_t;

// vmap<O1>(vmap<O2>(...vmap<On>(f))): O1 outermost.
template <class First, class... Rest, class F>
auto nest(F f) {
  if constexpr (sizeof...(Rest) == 0) return nax::vmap<First>(f);
  else return nax::vmap<First>(nest<Rest...>(f));
}

// The same nesting with every mapped axis placed last in its output (out_axes at<depth>).
template <class First, class... Rest, class F>
auto nest_last(F f) {
  if constexpr (sizeof...(Rest) == 0) return nax::vmap<First>(f, nax::out_axes(nax::at<0>));
  else return nax::vmap<First>(nest_last<Rest...>(f), nax::out_axes(nax::at<sizeof...(Rest)>));
}

enum class op { sum, max, min, mean };

// Reduction of x over the named axes, the others fixed at idx (a plain loop over x).
template <class X>
double reduce_ref(const X& x, const index_map& idx, const std::set<std::string>& names, op o) {
  double acc = o == op::max ? -1e300 : o == op::min ? 1e300 : 0.0;
  index_t count = 0;
  nax_test::for_each_index(x, [&](const index_map& m) {
    for (const auto& [name, value] : m)
      if (!names.count(name) && idx.at(name) != value) return;
    double v = double(at(x, m));
    ++count;
    if (o == op::max) acc = std::max(acc, v);
    else if (o == op::min) acc = std::min(acc, v);
    else acc += v;
  });
  return o == op::mean ? acc / double(count) : acc;
}

// x - collective(x) for the nesting order Os, against loops: psum, pmax and pmin over all
// three names (names in several orders); with Subsets, also collectives over some of the
// names and pmean, and the nesting with every mapped axis placed last (compiled for a few
// orders only, to keep the compile time down).
template <bool Subsets, class... Os, class X>
void check_comm_assoc(const X& x, nax::axes<Os...>) {
  CAPTURE(nax_test::names_of(nax::axes<Os...>{}));
  auto check = [&](const auto& result, std::set<std::string> names, op o) {
    CAPTURE(std::vector<std::string>(names.begin(), names.end()));
    CAPTURE(int(o));
    nax::Array<double, i, j, k> r = result;
    nax_test::check_all(r, [&](const index_map& idx) { return at(x, idx) - reduce_ref(x, idx, names, o); });
  };
  auto all = nest<Os...>([](const auto& v) {
    return nax::tuple(v - nax::psum<i, j, k>(v), v - nax::pmax<k, i, j>(v), v - nax::pmin<j, k, i>(v));
  })(x);
  check(std::get<0>(all), {"i", "j", "k"}, op::sum);
  check(std::get<1>(all), {"i", "j", "k"}, op::max);
  check(std::get<2>(all), {"i", "j", "k"}, op::min);
  if constexpr (Subsets) {
    auto some = nest<Os...>([](const auto& v) {
      return nax::tuple(v - nax::psum<j>(v), v - nax::pmax<k, i>(v), v - nax::pmin<i, k>(v), v - nax::pmean<j, i>(v),
                        v - nax::psum<k, i, j>(v));
    })(x);
    check(std::get<0>(some), {"j"}, op::sum);
    check(std::get<1>(some), {"k", "i"}, op::max);
    check(std::get<2>(some), {"i", "k"}, op::min);
    check(std::get<3>(some), {"i", "j"}, op::mean);
    check(std::get<4>(some), {"i", "j", "k"}, op::sum);

    // Mapped axes placed last at every level (JAX uses non-zero out_axes for coverage).
    auto last = nest_last<Os...>([](const auto& v) { return v - nax::psum<j, k, i>(v); })(x);
    auto e = nax::eval(last);
    static_assert(std::is_same_v<decltype(e), nax::Array<double, nax::detail::at_t<2, nax::axes<Os...>>,
                                                         nax::detail::at_t<1, nax::axes<Os...>>,
                                                         nax::detail::at_t<0, nax::axes<Os...>>>>);
    check(last, {"i", "j", "k"}, op::sum);
  }
}

}  // namespace

TEST_CASE("collectives: x - collective over {i, j, k} for every nesting order of the vmaps") {
  nax_test::random_source rng(5);
  auto x = nax_test::random_array<double, i, j, k>(rng, {2, 3, 4});
  nax_test::for_each_permutation<i, j, k>([&](auto order) {
    using O = decltype(order);
    check_comm_assoc<std::is_same_v<O, nax::axes<i, j, k>> || std::is_same_v<O, nax::axes<k, j, i>>>(x, order);
  });
}

TEST_CASE("collectives: two vmaps over a value with a visible axis (JAX vmap_names ('i', 'j'))") {
  nax_test::random_source rng(6);
  auto x = nax_test::random_array<float, i, j, k>(rng, {3, 4, 5});
  auto f = [](const auto& v) {  // v has k visible
    return nax::tuple(v - nax::psum<i>(v), v - nax::psum<j, i>(v), v - nax::pmax<i, j>(v), v - nax::pmin<j>(v));
  };
  auto run = [&](auto outputs) {
    auto check = [&](const auto& result, std::set<std::string> names, op o) {
      nax::Array<float, i, j, k> r = result;
      nax_test::check_all(r, [&](const index_map& idx) { return double(at(x, idx)) - reduce_ref(x, idx, names, o); },
                          1e-5, 1e-5);
    };
    check(std::get<0>(outputs), {"i"}, op::sum);
    check(std::get<1>(outputs), {"i", "j"}, op::sum);
    check(std::get<2>(outputs), {"i", "j"}, op::max);
    check(std::get<3>(outputs), {"j"}, op::min);
  };
  run(nax::vmap<i>(nax::vmap<j>(f))(x));
  run(nax::vmap<j>(nax::vmap<i>(f))(x));
}

TEST_CASE("collectives: psum, pmean, pmax, pmin of random values against loops") {
  nax_test::random_source rng(9);
  for (int trial = 0; trial < 3; ++trial) {
    const index_t ni = rng.nonzero_extent(6), nk = rng.extent(4);
    auto x = nax_test::random_array<float, i, k>(rng, {ni, nk});
    auto xi = nax_test::random_array<std::int64_t, k, i>(rng, {nk, ni});
    CAPTURE(ni);
    CAPTURE(nk);
    auto [ps, pm, mx, mn, ips, imx] = nax::vmap<i>([](const auto& v, const auto& w) {
      return nax::tuple(nax::psum<i>(v), nax::pmean<i>(v), nax::pmax<i>(v), nax::pmin<i>(v), nax::psum<i>(w), nax::pmax<i>(w));
    })(x, xi);
    nax::Array<float, i, k> psa = ps, pma = pm, mxa = mx, mna = mn;
    nax::Array<std::int64_t, i, k> ipsa = ips, imxa = imx;
    nax_test::check_all(psa, [&](const index_map& idx) { return reduce_ref(x, idx, {"i"}, op::sum); }, 1e-5, 1e-5);
    nax_test::check_all(pma, [&](const index_map& idx) { return reduce_ref(x, idx, {"i"}, op::mean); }, 1e-5, 1e-5);
    nax_test::check_all(mxa, [&](const index_map& idx) { return reduce_ref(x, idx, {"i"}, op::max); });
    nax_test::check_all(mna, [&](const index_map& idx) { return reduce_ref(x, idx, {"i"}, op::min); });
    nax_test::check_all(ipsa, [&](const index_map& idx) { return std::int64_t(reduce_ref(xi, idx, {"i"}, op::sum)); });
    nax_test::check_all(imxa, [&](const index_map& idx) { return std::int64_t(reduce_ref(xi, idx, {"i"}, op::max)); });
  }
}

TEST_CASE("collectives: axis_index and axis_size") {
  // Row-major over several names, whatever the nesting order.
  nax::Array<float, i, j> x({3, 4});
  auto f = [](const auto& v) {
    return nax::tuple(nax::axis_index<i, j>() + nax::cast<std::int32_t>(v), nax::axis_index<j, i>(),
                      nax::axis_size<i>(), nax::axis_size<i, j>());
  };
  auto check = [&](auto outputs) {
    nax::Array<std::int32_t, i, j> ij = std::get<0>(outputs), ji = std::get<1>(outputs);
    nax::Array<std::int32_t, i, j> si = std::get<2>(outputs), sij = std::get<3>(outputs);
    for (index_t a = 0; a < 3; ++a)
      for (index_t b = 0; b < 4; ++b) {
        CHECK(ij(a, b) == a * 4 + b);
        CHECK(ji(a, b) == b * 3 + a);
        CHECK(si(a, b) == 3);
        CHECK(sij(a, b) == 12);
      }
  };
  check(nax::vmap<i>(nax::vmap<j>(f))(x));
  check(nax::vmap<j>(nax::vmap<i>(f))(x));

  // axis_size as a replicated output, and as a number in arithmetic.
  auto sz = nax::eval(nax::vmap<i>([](const auto&) { return nax::axis_size<i>() * 2; }, nax::out_axes(nax::replicated))(
      nax::eval(nax::zeros<float, i>(5))));
  static_assert(std::is_same_v<decltype(sz), nax::Array<std::int32_t>>);
  CHECK(sz.item() == 10);
}

TEST_CASE("collectives: all_gather, untiled") {
  // JAX: every member gets [0, 1, 2, 3].
  auto x = nax::eval(nax::arange<float, i>(4));
  auto y = nax::eval(nax::vmap<i>([](const auto& v) { return nax::all_gather<i, g>(v); })(x));
  static_assert(std::is_same_v<decltype(y), nax::Array<float, i, g>>);
  for (index_t a = 0; a < 4; ++a)
    for (index_t b = 0; b < 4; ++b) CHECK(y(a, b) == float(b));

  // testAllGatherToUnmapped: vmap(all_gather, in_axes=1, out_axes=None)(x) == x.T
  auto x2 = nax::eval(nax::split<k, k, i>(nax::arange<std::int32_t, k>(15), 5));  // (k=3, i=5)
  auto t = nax::eval(nax::vmap<i>([](const auto& v) { return nax::all_gather<i, g>(v); }, nax::out_axes(nax::replicated))(x2));
  static_assert(std::is_same_v<decltype(t), nax::Array<std::int32_t, g, k>>);
  REQUIRE(t.extent<g>() == 5);
  for (index_t a = 0; a < 5; ++a)
    for (index_t b = 0; b < 3; ++b) CHECK(t(a, b) == x2(b, a));

  // testBatchedAllGather: over the inner and over the outer name.
  auto x3 = nax::eval(nax::split<j, j, i>(nax::arange<std::int32_t, j>(15), 5));  // (j=3, i=5)
  auto r1 = nax::eval(
      nax::vmap<j>(nax::vmap<i>([](const auto& v) { return nax::all_gather<i, g>(v); }, nax::out_axes(nax::replicated)))(x3));
  static_assert(std::is_same_v<decltype(r1), nax::Array<std::int32_t, j, g>>);
  for (index_t a = 0; a < 3; ++a)
    for (index_t b = 0; b < 5; ++b) CHECK(r1(a, b) == x3(a, b));
  auto x4 = nax::eval(nax::split<i, i, j>(nax::arange<std::int32_t, i>(15), 5));  // (i=3, j=5)
  auto r2 = nax::eval(
      nax::vmap<i>(nax::vmap<j>([](const auto& v) { return nax::all_gather<i, g>(v); }), nax::out_axes(nax::replicated))(x4));
  static_assert(std::is_same_v<decltype(r2), nax::Array<std::int32_t, j, g>>);
  for (index_t a = 0; a < 5; ++a)
    for (index_t b = 0; b < 3; ++b) CHECK(r2(a, b) == x4(b, a));

  // testAllGatherOfConst.
  auto [ones, one] = nax::vmap<i>([](const auto& v) {
    return nax::tuple(nax::all_gather<i, g>(v * 0 + 1), nax::all_gather<i, g>(nax::ones<std::int32_t>()));
  }, nax::out_axes(nax::replicated))(x2);
  nax::Array<std::int32_t, g, k> onesa = ones;
  nax::Array<std::int32_t, g> onea = one;
  CHECK(onesa.extent<g>() == 5);
  CHECK(onea.extent<g>() == 5);
  for (auto v : onesa) CHECK(v == 1);
  for (auto v : onea) CHECK(v == 1);
}

TEST_CASE("collectives: all_gather, tiled") {
  // testAllGatherTiled: x (4, 3, 5), in_axes=1, out_axes=None -> x.transpose(1, 0, 2).reshape(-1, 5)
  auto x = nax::eval(nax::split<i, i, c>(nax::split<k, k, i>(nax::arange<std::int32_t, k>(60), 15), 5));  // (k=4, i=3, c=5)
  REQUIRE(x.extent<i>() == 3);
  auto y = nax::eval(nax::vmap<i>([](const auto& v) { return nax::all_gather<i, k>(v, nax::tiled); },
                                  nax::out_axes(nax::replicated))(x));
  static_assert(std::is_same_v<decltype(y), nax::Array<std::int32_t, k, c>>);
  REQUIRE(y.extent<k>() == 12);
  for (index_t m = 0; m < 3; ++m)
    for (index_t a = 0; a < 4; ++a)
      for (index_t b = 0; b < 5; ++b) CHECK(y(m * 4 + a, b) == x(a, m, b));

  // Mapped output: every member holds the concatenation.
  nax_test::random_source rng(2);
  auto z = nax_test::random_array<double, i, c>(rng, {4, 3});
  auto w = nax::eval(nax::vmap<i>([](const auto& v) { return nax::all_gather<i, c>(v, nax::tiled); })(z));
  static_assert(std::is_same_v<decltype(w), nax::Array<double, i, c>>);
  REQUIRE(w.extent<c>() == 12);
  for (index_t m = 0; m < 4; ++m)
    for (index_t q = 0; q < 12; ++q) CHECK(w(m, q) == z(q / 3, q % 3));
}

TEST_CASE("collectives: psum_scatter") {
  // JAX's pmap test: psum_scatter of arange(16).reshape(4, 4).
  auto x = nax::eval(nax::split<i, i, s>(nax::arange<float, i>(16), 4));
  auto u = nax::eval(nax::vmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v); })(x));
  static_assert(std::is_same_v<decltype(u), nax::Array<float, i>>);
  REQUIRE(u.extent<i>() == 4);
  const float expected[4] = {24, 28, 32, 36};
  for (index_t m = 0; m < 4; ++m) CHECK(u(m) == expected[m]);
  auto t = nax::eval(nax::vmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v, nax::tiled); })(x));
  static_assert(std::is_same_v<decltype(t), nax::Array<float, i, s>>);
  REQUIRE(t.extent<s>() == 1);
  for (index_t m = 0; m < 4; ++m) CHECK(t(m, 0) == expected[m]);

  // Random values, the scattered axis between others.
  nax_test::random_source rng(4);
  auto y = nax_test::random_array<double, c, i, s>(rng, {2, 3, 3});
  auto r = nax::eval(nax::vmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v); })(y));
  static_assert(std::is_same_v<decltype(r), nax::Array<double, i, c>>);
  nax_test::check_all(r, [&](const index_map& idx) {
    double acc = 0;
    for (index_t m = 0; m < 3; ++m) acc += y(idx.at("c"), m, idx.at("i"));
    return acc;
  });
  auto y6 = nax_test::random_array<double, i, s, c>(rng, {3, 6, 2});
  auto r6 = nax::eval(nax::vmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v, nax::tiled); })(y6));
  static_assert(std::is_same_v<decltype(r6), nax::Array<double, i, s, c>>);
  REQUIRE(r6.extent<s>() == 2);
  nax_test::check_all(r6, [&](const index_map& idx) {
    double acc = 0;
    for (index_t m = 0; m < 3; ++m) acc += y6(m, idx.at("i") * 2 + idx.at("s"), idx.at("c"));
    return acc;
  });

  // The scattered axis must have one element per member (untiled), or a multiple (tiled).
  auto bad = nax::eval(nax::zeros<float, i, s>(3, 4));
  nax_test::check_shape_error([&] { (void)nax::vmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v); })(bad); },
                              {"psum_scatter", "'s'", "4", "3"});
  nax_test::check_shape_error(
      [&] { (void)nax::vmap<i>([](const auto& v) { return nax::psum_scatter<i, s>(v, nax::tiled); })(bad); },
      {"psum_scatter", "'s'", "4", "3"});
}

TEST_CASE("collectives: ppermute") {
  auto perm_f = [](std::vector<std::pair<int, int>> perm) {
    return [perm](const auto& v) { return nax::ppermute<i>(v, perm); };
  };
  // xs = [0, 10, 20], perm [[1, 0], [2, 1], [0, 2]] -> [10, 20, 0]
  nax::Array<float, i> xs({3}, {0, 10, 20});
  nax::Array<float, i> r = nax::vmap<i>(perm_f({{1, 0}, {2, 1}, {0, 2}}))(xs);
  CHECK(r(0) == 10.f);
  CHECK(r(1) == 20.f);
  CHECK(r(2) == 0.f);

  // (i, (i + 1) % N): roll by one; (i, i + 1): member 0 receives zeros.
  nax::Array<std::int32_t, i, c> x({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<std::pair<int, int>> roll, shift;
  for (int m = 0; m < 4; ++m) roll.push_back({m, (m + 1) % 4});
  for (int m = 0; m < 3; ++m) shift.push_back({m, m + 1});
  auto rolled = nax::eval(nax::vmap<i>(perm_f(roll))(x));
  auto shifted = nax::eval(nax::vmap<i>(perm_f(shift))(x));
  for (index_t m = 0; m < 4; ++m)
    for (index_t q = 0; q < 2; ++q) {
      CHECK(rolled(m, q) == x((m + 3) % 4, q));
      CHECK(shifted(m, q) == (m == 0 ? 0 : x(m - 1, q)));
    }

  // A value that does not vary over i is sent as it is (the non-destinations get zeros).
  nax::Array<float, c> constant({2}, {5, 6});
  auto sent = nax::eval(nax::vmap<i>([&](const auto&, const auto& k0) { return nax::ppermute<i>(k0, {{0, 2}}); },
                                     nax::in_axes(nax::mapped, nax::none))(x, constant));
  for (index_t m = 0; m < 4; ++m)
    for (index_t q = 0; q < 2; ++q) CHECK(sent(m, q) == (m == 2 ? constant(q) : 0.f));

  // JAX testPPermute: random permutations of 10 members, pairs shuffled:
  // x - ppermute(x, zip(arange, perm)) == x - x[argsort(perm)].
  auto xa = nax::eval(nax::arange<std::int32_t, i>(10));
  std::mt19937 engine(1);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<int> perm(10);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), engine);
    std::vector<std::pair<int, int>> pairs;
    for (int m = 0; m < 10; ++m) pairs.push_back({m, perm[m]});
    std::shuffle(pairs.begin(), pairs.end(), engine);
    auto d = nax::eval(nax::vmap<i>([&](const auto& v) { return v - nax::ppermute<i>(v, pairs); })(xa));
    std::vector<int> inverse(10);
    for (int m = 0; m < 10; ++m) inverse[perm[m]] = m;
    for (index_t m = 0; m < 10; ++m) CHECK(d(m) == m - inverse[m]);
  }
}

TEST_CASE("collectives: ppermute rejects duplicate and out-of-range pairs") {
  nax::Array<float, i> xs({4});
  auto run = [&](std::vector<std::pair<int, int>> perm) {
    (void)nax::vmap<i>([&](const auto& v) { return nax::ppermute<i>(v, perm); })(xs);
  };
  CHECK_THROWS_AS(run({{0, 1}, {0, 2}}), nax::argument_error);
  CHECK_THROWS_WITH_AS(run({{0, 1}, {0, 2}}), doctest::Contains("source 0 appears twice"), nax::argument_error);
  CHECK_THROWS_WITH_AS(run({{0, 1}, {2, 1}}), doctest::Contains("destination 1 appears twice"), nax::argument_error);
  CHECK_THROWS_WITH_AS(run({{0, 4}}), doctest::Contains("(0, 4)"), nax::argument_error);
  CHECK_THROWS_WITH_AS(run({{-1, 2}}), doctest::Contains("(-1, 2)"), nax::argument_error);
  CHECK_NOTHROW(run({}));  // everyone receives zeros
  nax::Array<float, i> zeros = nax::vmap<i>([](const auto& v) { return nax::ppermute<i>(v, {}); })(nax::eval(nax::ones<float, i>(3)));
  for (auto v : zeros) CHECK(v == 0.f);
}

TEST_CASE("collectives: all_to_all") {
  nax_test::random_source rng(8);
  // Member m's block q of s goes to member q, at index m of the new axis n.
  auto x = nax_test::random_array<float, i, s, c>(rng, {4, 4, 3});
  auto y = nax::eval(nax::vmap<i>([](const auto& v) { return nax::all_to_all<i, s, n>(v); })(x));
  static_assert(std::is_same_v<decltype(y), nax::Array<float, i, n, c>>);
  nax_test::check_all(y, [&](const index_map& idx) { return x(idx.at("n"), idx.at("i"), idx.at("c")); });

  // The split axis last, the member axis in the middle of the argument (JAX's testAllToAll
  // with other vmap / split positions).
  auto z = nax_test::random_array<std::int32_t, c, i, s>(rng, {2, 3, 3});
  auto w = nax::eval(nax::vmap<i>([](const auto& v) { return nax::all_to_all<i, s, n>(v); })(z));
  static_assert(std::is_same_v<decltype(w), nax::Array<std::int32_t, i, c, n>>);
  nax_test::check_all(w, [&](const index_map& idx) { return z(idx.at("c"), idx.at("n"), idx.at("i")); });

  // all_to_all twice is the identity.
  auto back = nax::eval(nax::vmap<i>([](const auto& v) { return nax::all_to_all<i, n, s>(nax::all_to_all<i, s, n>(v)); })(x));
  nax_test::check_all(back, [&](const index_map& idx) { return at(x, idx); });

  auto bad = nax::eval(nax::zeros<float, i, s>(3, 4));
  nax_test::check_shape_error([&] { (void)nax::vmap<i>([](const auto& v) { return nax::all_to_all<i, s, n>(v); })(bad); },
                              {"all_to_all", "'s'", "4", "3"});
}

TEST_CASE("collectives: an unbound name at run time is an argument_error naming it") {
  // The compile-time check (tests/compile_fail/map_unbound_collective.cpp) fires where the
  // value is stored; building the collective outside every map fails already when it asks
  // for the axis's extent.
  nax::Array<float, i> x({3});
  CHECK_THROWS_WITH_AS((void)nax::vmap<i>([](const auto& v) { return nax::psum<j>(v); }, nax::out_axes(nax::at<0>))(x),
                       doctest::Contains("'j'"), nax::argument_error);
}
