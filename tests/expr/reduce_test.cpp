// Reductions (sum, prod, max, min, mean, logsumexp, argmax, argmin) against plain reference
// loops (tests/support/einsum_reference.hpp): every subset of 1-3 axes of arrays of rank 1-4
// with pseudo-random axis orders (of the array and of the names given to the reduction), all
// axes, random extents that hit 0 and 1, NaN and infinities, reductions of expressions with
// broadcasting, empty reductions, result types, and sizes large enough for the threaded paths.
#include "../support/einsum_reference.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(l);

using einsum_ref::reduction;
using einsum_ref::tensor;
using nax::index_t;
using all_axes = nax::axes<i, j, k, l>;
using real = long double;  // every reference computes in long double

constexpr long double nan_v = std::numeric_limits<long double>::quiet_NaN();
constexpr long double inf_v = std::numeric_limits<long double>::infinity();

// Each reduction as a type, so a test can call it with a list of axis names.
#define REDUCTION_TAG(NAME)                                               \
  struct NAME##_tag {                                                     \
    static constexpr reduction kind = reduction::NAME;                    \
    template <class... As, class X>                                       \
    static auto apply(X&& x) {                                            \
      return nax::NAME<As...>(std::forward<X>(x));                        \
    }                                                                     \
  };
REDUCTION_TAG(sum)
REDUCTION_TAG(prod)
REDUCTION_TAG(max)
REDUCTION_TAG(min)
REDUCTION_TAG(mean)
REDUCTION_TAG(logsumexp)
#undef REDUCTION_TAG

// Op over the names of L (no names: over all axes).
template <class Op, class L, class X>
auto reduce_over(X&& x) {
  return [&]<class... As>(nax::axes<As...>) { return Op::template apply<As...>(std::forward<X>(x)); }(L{});
}

template <class T>
constexpr double eps_of() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::epsilon();
  else return 0.0;
}

// The element type nax documents for each reduction of T.
template <class Op, class T>
using expected_result_t = std::conditional_t<
    Op::kind == reduction::mean || Op::kind == reduction::logsumexp, nax::floating_t<T>,
    std::conditional_t<std::is_same_v<T, bool> && (Op::kind == reduction::sum || Op::kind == reduction::prod),
                       std::int32_t, T>>;

template <class L>
struct reversed;
template <class... As>
struct reversed<nax::axes<As...>> {
  template <std::size_t... K>
  static auto make(std::index_sequence<K...>)
      -> nax::axes<nax::detail::at_t<sizeof...(As) - 1 - K, nax::axes<As...>>...>;
  using type = decltype(make(std::index_sequence_for<As...>{}));
};

// An extent for a test of rank `rank`: 0 and 1 often, sometimes long enough (> 32) for the
// reduction's unrolled accumulators when the rank is low.
index_t draw_extent(nax_test::random_source& rng, std::size_t rank) {
  static constexpr index_t max_by_rank[] = {1, 75, 40, 9, 5};
  index_t pick = rng.integer(0, 9);
  if (pick == 0) return 0;
  if (pick <= 2) return 1;
  return rng.integer(2, max_by_rank[rank]);
}

enum class values { plain, special };

// Random values for op `kind` of type T: plain ones, or (special) with NaN and infinities.
template <class T>
void fill_values(nax_test::random_source& rng, T* data, index_t n, reduction kind, values mode) {
  for (index_t q = 0; q < n; ++q) {
    T v;
    if constexpr (std::is_same_v<T, bool>) {
      v = rng.chance(0.5);
    } else if constexpr (std::is_floating_point_v<T>) {
      if (kind == reduction::prod) {  // magnitudes near 1 so long products stay representable
        v = rng.value<T>(T(0.5), T(1.5)) * (rng.chance(0.5) ? T(1) : T(-1));
      } else {
        v = T(std::round(rng.value<T>(T(-16), T(16)))) / T(4);  // many ties for max/min
      }
      if (mode == values::special) {
        index_t r = rng.integer(0, 29);
        if (r == 0) v = std::numeric_limits<T>::quiet_NaN();
        else if (r == 1) v = std::numeric_limits<T>::infinity();
        else if (r == 2 || r == 3) v = -std::numeric_limits<T>::infinity();
      }
    } else {
      if (kind == reduction::prod) {  // no overflow: mostly +-1, some 0
        index_t r = rng.integer(0, 40);
        v = r == 0 ? T(0) : (r % 2 ? T(1) : T(-1));
      } else if constexpr (std::is_signed_v<T>) {
        v = rng.value<T>(T(-20), T(20));
      } else {
        v = rng.value<T>(T(0), T(40));
      }
    }
    data[q] = v;
  }
}

// Checks Op over the names of Red (in Red's order; none: all axes) on arrays with axes In of
// element type T, for a few random extents, against the reference loop. With Transposed, the
// reduction reads the array through transpose<> into another axis order (strided reads).
// The result is read twice: as nax::eval gives it, and assigned to an array with the kept
// axes reversed (by name); a rank-0 result also through item().
template <class T, class Op, class In, class Red, bool Transposed = false>
void check_reduction_case(nax_test::random_source& rng, int trials) {
  using Kept = nax::detail::difference_t<In, std::conditional_t<Red::size == 0, In, Red>>;
  using Result = expected_result_t<Op, T>;
  using Seen = einsum_ref::nth_permutation_t<In, einsum_ref::mix(In::size, Red::size, 99) % 5 + 1>;
  const auto in_names = nax_test::names_of(In{});
  const auto red_names = Red::size == 0 ? in_names : nax_test::names_of(Red{});
  for (int trial = 0; trial < trials; ++trial) {
    std::array<index_t, In::size> ext{};
    for (auto& e : ext) e = draw_extent(rng, In::size);
    const values mode = std::is_floating_point_v<T> && trial == trials - 1 ? values::special : values::plain;
    nax_test::array_of<T, In> x(ext);
    fill_values(rng, x.data(), x.size(), Op::kind, mode);
    auto input = [&] {
      if constexpr (Transposed)
        return [&]<class... P>(nax::axes<P...>) { return nax::transpose<P...>(x); }(Seen{});
      else
        return x.view();
    };
    auto context = [&] {
      std::string s = std::string(einsum_ref::to_string(Op::kind)) + " over {";
      for (const auto& n : red_names) s += n + " ";
      return s + "} of " + einsum_ref::describe_index(in_names, std::vector<index_t>(ext.begin(), ext.end())) +
             (Transposed ? " (transposed)" : "") + (mode == values::special ? " with NaN/inf" : "");
    };
    CAPTURE(context());

    // max and min over an empty axis: shape_error naming the first such axis named.
    std::string empty_axis;
    for (const auto& n : red_names)
      if (empty_axis.empty() && ext[std::find(in_names.begin(), in_names.end(), n) - in_names.begin()] == 0)
        empty_axis = n;
    if ((Op::kind == reduction::max || Op::kind == reduction::min) && !empty_axis.empty()) {
      if constexpr (Red::size == 0 && Transposed) {  // no names: the first empty axis in the operand's order
        for (const auto& n : nax_test::names_of(Seen{}))
          if (ext[std::find(in_names.begin(), in_names.end(), n) - in_names.begin()] == 0) {
            empty_axis = n;
            break;
          }
      }
      nax_test::check_shape_error([&] { (void)nax::eval(reduce_over<Op, Red>(input())); },
                                  {"'" + empty_axis + "'", "extent 0"});
      continue;
    }

    auto result = nax::eval(reduce_over<Op, Red>(input()));
    static_assert(std::is_same_v<typename decltype(result)::value_type, Result>);
    static_assert(nax::detail::same_set_v<typename decltype(result)::axes_type, Kept>);
    const auto xt = einsum_ref::from_nax<real>(x);
    const auto expected = einsum_ref::reduce(xt, red_names, Op::kind);
    const auto bound = einsum_ref::error_bound(xt, red_names, Op::kind, eps_of<Result>());
    einsum_ref::check_close(result, expected, &bound);

    nax_test::array_of<Result, typename reversed<Kept>::type> by_name = reduce_over<Op, Red>(input());
    einsum_ref::check_close(by_name, expected, &bound);
    if constexpr (Kept::size == 0) {
      nax::Array<Result> item;
      item.data()[0] = reduce_over<Op, Red>(input()).item();
      einsum_ref::check_close(item, expected, &bound);
    }
  }
}

// Op over every subset of 1 to 3 axes of In (names in a pseudo-random order per subset),
// and over all axes by naming none.
template <class T, class Op, class In, bool Transposed = false>
void check_every_subset(nax_test::random_source& rng, int trials) {
  constexpr std::size_t subsets = std::size_t{1} << In::size;
  [&]<std::size_t... Mask>(std::index_sequence<Mask...>) {
    (
        [&] {
          if constexpr (Mask == 0) {
            check_reduction_case<T, Op, In, nax::axes<>, Transposed>(rng, trials);
          } else if constexpr (std::popcount(Mask) <= 3) {
            using Red = einsum_ref::nth_permutation_t<einsum_ref::subset_t<In, Mask>,
                                                      einsum_ref::mix(Mask, In::size, sizeof(T))>;
            check_reduction_case<T, Op, In, Red, Transposed>(rng, trials);
          }
        }(),
        ...);
  }(std::make_index_sequence<subsets>{});
}

// The first R of i, j, k, l in a pseudo-random order fixed by Seed.
template <std::size_t R, std::size_t Seed>
using random_order = einsum_ref::nth_permutation_t<einsum_ref::first_t<all_axes, R>, einsum_ref::mix(R, Seed)>;

nax_test::random_source seeded(std::size_t a, std::size_t b = 0) { return nax_test::random_source(einsum_ref::mix(a, b, 7)); }

// Large float arrays (300 x 50000 and 3 x 200 x 20000) filled quickly with values in [lo, hi).
template <class... As>
nax::Array<float, As...> big_array(std::array<index_t, sizeof...(As)> ext, std::uint64_t seed, float lo, float hi) {
  nax::Array<float, As...> x(ext);
  std::uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (float& v : x) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = lo + (hi - lo) * static_cast<float>(static_cast<double>(s >> 40) / double(1ull << 24));
  }
  return x;
}

}  // namespace

// ---- Every subset of axes, every rank, pseudo-random orders ---------------------------------

TEST_CASE("sum over every subset of 1-3 axes of arrays of rank 1-4, and over all axes") {
  auto rng = seeded(1);
  check_every_subset<float, sum_tag, random_order<1, 11>>(rng, 5);
  check_every_subset<float, sum_tag, random_order<2, 12>>(rng, 5);
  check_every_subset<float, sum_tag, random_order<3, 13>>(rng, 5);
  check_every_subset<float, sum_tag, random_order<4, 14>>(rng, 5);
}

TEST_CASE("sum in double over every subset of a rank-3 array read through a transpose") {
  auto rng = seeded(2);
  check_every_subset<double, sum_tag, random_order<3, 21>, true>(rng, 5);
}

TEST_CASE("max over every subset of 1-3 axes of a rank-4 array, NaN and infinities propagate") {
  auto rng = seeded(3);
  check_every_subset<double, max_tag, random_order<4, 31>>(rng, 5);
}

TEST_CASE("min over every subset of a rank-3 array read through a transpose") {
  auto rng = seeded(4);
  check_every_subset<float, min_tag, random_order<3, 41>, true>(rng, 6);
}

TEST_CASE("prod over every subset of a rank-3 array") {
  auto rng = seeded(5);
  check_every_subset<double, prod_tag, random_order<3, 51>>(rng, 6);
}

TEST_CASE("mean over every subset of a rank-3 array") {
  auto rng = seeded(6);
  check_every_subset<float, mean_tag, random_order<3, 61>>(rng, 6);
}

TEST_CASE("logsumexp over every subset of a rank-3 array read through a transpose") {
  auto rng = seeded(7);
  check_every_subset<double, logsumexp_tag, random_order<3, 71>, true>(rng, 6);
}

TEST_CASE("the other element type of each reduction on a few subsets of a rank-2 array") {
  auto rng = seeded(8);
  using In = random_order<2, 81>;
  using Inner = nax::detail::last_t<In>;
  check_reduction_case<double, prod_tag, In, Inner>(rng, 6);
  check_reduction_case<float, prod_tag, In, nax::axes<>>(rng, 6);
  check_reduction_case<float, max_tag, In, Inner, true>(rng, 6);
  check_reduction_case<double, min_tag, In, nax::axes<>>(rng, 6);
  check_reduction_case<double, mean_tag, In, Inner, true>(rng, 6);
  check_reduction_case<float, logsumexp_tag, In, Inner>(rng, 6);
  check_reduction_case<float, logsumexp_tag, In, nax::axes<>, true>(rng, 6);
}

TEST_CASE_TEMPLATE("integer sum, prod, max, min and mean over inner, outer and all axes", T, std::int32_t,
                   std::int64_t, std::uint8_t) {
  auto rng = seeded(9, sizeof(T));
  using In = nax::axes<k, i, j>;
  if constexpr (!std::is_same_v<T, std::uint8_t>) {  // uint8 sums would wrap
    check_reduction_case<T, sum_tag, In, nax::axes<j>>(rng, 5);
    check_reduction_case<T, sum_tag, In, nax::axes<j, k>>(rng, 5);
    check_reduction_case<T, prod_tag, In, nax::axes<k>>(rng, 5);
    check_reduction_case<T, mean_tag, In, nax::axes<i, j>>(rng, 5);  // -> double
  }
  check_reduction_case<T, max_tag, In, nax::axes<k>>(rng, 5);
  check_reduction_case<T, min_tag, In, nax::axes<>>(rng, 5);
  check_reduction_case<T, min_tag, In, nax::axes<j>>(rng, 5);
}

TEST_CASE("bool: sum and prod count in int32, max and min are any and all") {
  auto rng = seeded(10);
  using In = nax::axes<j, i>;
  check_reduction_case<bool, sum_tag, In, nax::axes<i>>(rng, 5);
  check_reduction_case<bool, prod_tag, In, nax::axes<j>>(rng, 5);
// max and min of bool: any and all.
  check_reduction_case<bool, max_tag, In, nax::axes<i>>(rng, 5);
  check_reduction_case<bool, min_tag, In, nax::axes<>>(rng, 5);

  nax::Array<bool, i> many({1000});
  for (index_t q = 0; q < 1000; ++q) many.data()[q] = q % 3 == 0;
  auto count = nax::sum(many).item();
  static_assert(std::is_same_v<decltype(count), std::int32_t>);
  CHECK(count == 334);
}

TEST_CASE("integer sums and means are exact where a floating accumulator would round") {
  // int64 values near 2^52: a double accumulator loses the low bits.
  nax::Array<std::int64_t, i, j> x({3, 40});
  std::int64_t expected_row[3] = {0, 0, 0};
  for (index_t r = 0; r < 3; ++r)
    for (index_t c = 0; c < 40; ++c) {
      std::int64_t v = (std::int64_t{1} << 52) + 2 * c + 1 + r;
      x(r, c) = (c % 2 ? -v : v) + 3;
      expected_row[r] += x(r, c);
    }
  nax::Array<std::int64_t, i> s = nax::sum<j>(x);
  for (index_t r = 0; r < 3; ++r) CHECK(s(r) == expected_row[r]);
  // int32 sum of 70000 values of 30000: 2.1e9 does not fit... keep within range: 60000 * 30000 = 1.8e9.
  nax::Array<std::int32_t, i> big({60000});
  for (auto& v : big) v = 30000;
  CHECK(nax::sum(big).item() == 1800000000);
  // The mean of int64 is a double, also where float would round; of int32 a float, as JAX.
  nax::Array<std::int64_t, i> m({3}, {16777216, 16777217, 16777219});
  auto avg = nax::mean(m).item();
  static_assert(std::is_same_v<decltype(avg), double>);
  CHECK(avg == doctest::Approx(16777217.333333333).epsilon(1e-15));
  nax::Array<std::int32_t, i> m32({3}, {1, 2, 4});
  auto avg32 = nax::mean(m32).item();
  static_assert(std::is_same_v<decltype(avg32), float>);
  CHECK(avg32 == doctest::Approx(7.0 / 3.0).epsilon(1e-6));
  // Integer products: factorials.
  CHECK(nax::prod(nax::cast<std::int32_t>(nax::arange<std::int32_t, i>(12) + 1)).item() == 479001600);
  CHECK(nax::prod(nax::arange<std::int64_t, i>(20) + std::int64_t{1}).item() == 2432902008176640000LL);
}

// ---- Special values and empty reductions ----------------------------------------------------

TEST_CASE("max and min propagate NaN; logsumexp of +inf, -inf and NaN") {
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float inf = std::numeric_limits<float>::infinity();
  // Rows: NaN first, NaN last, NaN in the middle, no NaN, all -inf, +inf among finite.
  nax::Array<float, i, j> x({6, 3}, {nan, 1, 2,  //
                                     1, 2, nan,  //
                                     5, nan, -5,  //
                                     -1, 7, 3,  //
                                     -inf, -inf, -inf,  //
                                     1, inf, -inf});
  nax::Array<float, i> mx = nax::max<j>(x), mn = nax::min<j>(x), lse = nax::logsumexp<j>(x);
  for (index_t r = 0; r < 3; ++r) {
    CHECK(std::isnan(mx(r)));
    CHECK(std::isnan(mn(r)));
    CHECK(std::isnan(lse(r)));
  }
  CHECK(mx(3) == 7);
  CHECK(mn(3) == -1);
  CHECK(lse(3) == doctest::Approx(std::log(std::exp(-1.0) + std::exp(7.0) + std::exp(3.0))));
  CHECK(mx(4) == -inf);
  CHECK(lse(4) == -inf);
  CHECK(mx(5) == inf);
  CHECK(mn(5) == -inf);
  CHECK(lse(5) == inf);
  // Over the outer axis too (the kept innermost axis accumulates whole rows).
  nax::Array<float, j> mx0 = nax::max<i>(x), mn0 = nax::min<i>(x);
  for (index_t c = 0; c < 3; ++c) {
    CHECK(std::isnan(mx0(c)));
    CHECK(std::isnan(mn0(c)));
  }
  CHECK(std::isnan(nax::max(x).item()));
  // logsumexp of huge values does not overflow (the max is subtracted first).
  nax::Array<float, i> large({3}, {1000.f, 1000.f, -1000.f});
  CHECK(nax::logsumexp(large).item() == doctest::Approx(1000.0 + std::log(2.0)));
}

TEST_CASE("empty reductions: sum 0, prod 1, mean NaN, logsumexp -inf; max and min throw naming the axis") {
  nax::Array<float, i, j, k> x({3, 0, 4});
  nax::Array<float, i, k> s = nax::sum<j>(x), p = nax::prod<j>(x), m = nax::mean<j>(x), lse = nax::logsumexp<j>(x);
  for (index_t a = 0; a < 3; ++a)
    for (index_t c = 0; c < 4; ++c) {
      CHECK(s(a, c) == 0);
      CHECK(p(a, c) == 1);
      CHECK(std::isnan(m(a, c)));
      CHECK(lse(a, c) == -std::numeric_limits<float>::infinity());
    }
  CHECK(nax::sum(x).item() == 0);
  CHECK(nax::prod(x).item() == 1);
  CHECK(std::isnan(nax::mean(x).item()));
  CHECK(nax::logsumexp(x).item() == -std::numeric_limits<float>::infinity());
  nax_test::check_shape_error([&] { (void)nax::max<j>(x); }, {"'j'", "extent 0"});
  nax_test::check_shape_error([&] { (void)nax::min<k, j>(x); }, {"'j'", "extent 0"});
  nax_test::check_shape_error([&] { (void)nax::max(x); }, {"'j'", "extent 0"});
  nax_test::check_shape_error([&] { (void)nax::argmax<j>(x); }, {"'j'", "extent 0"});
  nax_test::check_shape_error([&] { (void)nax::argmin<j>(x); }, {"'j'", "extent 0"});
  // Not empty over the named axes: no error, an empty result.
  auto r = nax::eval(nax::max<i, k>(x));
  CHECK(r.extent<j>() == 0);
  auto am = nax::eval(nax::argmax<k>(x));
  CHECK(am.size() == 0);
  // Integers: an empty sum is 0, an empty mean NaN (as a double).
  nax::Array<std::int32_t, i> none({0});
  CHECK(nax::sum(none).item() == 0);
  CHECK(nax::prod(none).item() == 1);
  CHECK(std::isnan(nax::mean(none).item()));
}

// ---- argmax / argmin --------------------------------------------------------------------------

template <class T, class A, class X>
void check_arg_reductions(const X& x) {
  static_assert(std::is_same_v<typename decltype(nax::eval(nax::argmax<A>(x)))::value_type, std::int32_t>);
  const auto xt = einsum_ref::from_nax<real>(x);
  const std::string name(nax::axis_name<A>());
  CAPTURE(name);
  if (x.template extent<A>() == 0) {
    nax_test::check_shape_error([&] { (void)nax::argmax<A>(x); }, {"'" + name + "'"});
    return;
  }
  einsum_ref::check_close(nax::eval(nax::argmax<A>(x)), einsum_ref::arg_reduce(xt, name, true));
  einsum_ref::check_close(nax::eval(nax::argmin<A>(x)), einsum_ref::arg_reduce(xt, name, false));
}

TEST_CASE_TEMPLATE("argmax and argmin along each axis: first occurrence of ties, NaN counts as extreme", T, float,
                   double, std::int32_t) {
  auto rng = seeded(11, sizeof(T));
  for (int trial = 0; trial < 12; ++trial) {
    nax::Array<T, k, i, j> x({draw_extent(rng, 3), draw_extent(rng, 3), draw_extent(rng, 3)});
    for (T& v : x) {
      v = static_cast<T>(rng.integer(-3, 3));  // many ties
      if constexpr (std::is_floating_point_v<T>)
        if (trial % 2 && rng.chance(0.08)) v = std::numeric_limits<T>::quiet_NaN();
    }
    CAPTURE(trial);
    check_arg_reductions<T, i>(x);
    check_arg_reductions<T, j>(x);
    check_arg_reductions<T, k>(x);
  }
  // Explicit: ties pick the first; a NaN wins over everything, the first NaN of several.
  if constexpr (std::is_floating_point_v<T>) {
    constexpr T nan = std::numeric_limits<T>::quiet_NaN();
    nax::Array<T, i, j> y({3, 4}, {1, 3, 3, 0,  //
                                   2, nan, 5, nan,  //
                                   -1, -1, 4, 4});
    nax::Array<std::int32_t, i> amax = nax::argmax<j>(y), amin = nax::argmin<j>(y);
    CHECK(amax(0) == 1);
    CHECK(amin(0) == 3);
    CHECK(amax(1) == 1);
    CHECK(amin(1) == 1);
    CHECK(amax(2) == 2);
    CHECK(amin(2) == 0);
  }
}

// ---- Reductions of expressions ------------------------------------------------------------------

TEST_CASE("reductions of broadcast expressions, slices, transposes and other reductions") {
  auto rng = seeded(12);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t ni = draw_extent(rng, 3), nj = draw_extent(rng, 3), nk = draw_extent(rng, 3);
    CAPTURE(ni);
    CAPTURE(nj);
    CAPTURE(nk);
    nax::Array<float, i, j> a({ni, nj});
    nax::Array<float, k, j> b({nk, nj});
    nax::Array<float, k> c({nk});
    fill_values(rng, a.data(), a.size(), reduction::sum, values::plain);
    fill_values(rng, b.data(), b.size(), reduction::sum, values::plain);
    fill_values(rng, c.data(), c.size(), reduction::sum, values::plain);
    const auto at = einsum_ref::from_nax<real>(a), bt = einsum_ref::from_nax<real>(b),
               ct = einsum_ref::from_nax<real>(c);
    // a * b + c has axes (i, j, k), broadcast by name.
    const auto abc = einsum_ref::map2(einsum_ref::map2(at, bt, [](real x, real y) { return x * y; }), ct,
                                      [](real x, real y) { return x + y; });
    const double eps = std::numeric_limits<float>::epsilon();
    {
      auto e = einsum_ref::reduce(abc, {"j"}, reduction::sum);
      auto bound = einsum_ref::error_bound(abc, {"j"}, reduction::sum, eps);
      einsum_ref::check_close(nax::eval(nax::sum<j>(a * b + c)), e, &bound);
      nax::Array<float, k, i> kept = nax::sum<j>(a * b + c);
      einsum_ref::check_close(kept, e, &bound);
    }
    {
      auto e = einsum_ref::reduce(abc, {"i", "k"}, reduction::mean);
      auto bound = einsum_ref::error_bound(abc, {"i", "k"}, reduction::mean, eps);
      einsum_ref::check_close(nax::eval(nax::mean<k, i>(a * b + c)), e, &bound);
    }
    if (ni > 0 && nk > 0) {
      auto e = einsum_ref::reduce(abc, {"i", "k"}, reduction::max);
      einsum_ref::check_close(nax::eval(nax::max<k, i>(a * b + c)), e);
    }
    {
      auto e = einsum_ref::reduce(abc, {"i", "j", "k"}, reduction::sum);
      auto bound = einsum_ref::error_bound(abc, {"i", "j", "k"}, reduction::sum, eps);
      nax::Array<float> all = nax::sum(a * b + c);
      einsum_ref::check_close(all, e, &bound);
    }
    // Sum over a strided slice of a transposed operand: x[1::2] along j, read as (j, i).
    if (nj >= 1) {
      const index_t begin = nj == 1 ? 0 : 1;
      auto sliced = einsum_ref::slice(at, "j", begin, nj, 2);
      auto e = einsum_ref::reduce(sliced, {"j"}, reduction::sum);
      auto bound = einsum_ref::error_bound(sliced, {"j"}, reduction::sum, eps);
      einsum_ref::check_close(nax::eval(nax::sum<j>(nax::slice<j>(nax::transpose<j, i>(a), begin, nj, 2))), e, &bound);
    }
    // A reduction of a reduction (the inner one is materialised first) and of a function.
    if (nk > 0) {
      auto inner = einsum_ref::reduce(bt, {"k"}, reduction::max);
      auto e = einsum_ref::reduce(einsum_ref::map1(inner, [](real v) { return std::exp(v); }), {"j"}, reduction::sum);
      auto bound = einsum_ref::error_bound(einsum_ref::map1(inner, [](real v) { return std::exp(v); }), {"j"},
                                           reduction::sum, 4 * eps);
      einsum_ref::check_close(nax::eval(nax::sum<j>(nax::exp(nax::max<k>(b)))), e, &bound);
    }
    // softmax along j sums to 1 wherever j is not empty.
    if (nj > 0) {
      nax::Array<float, i> total = nax::sum<j>(nax::exp(a - nax::logsumexp<j>(a)));
      for (float v : total) CHECK(v == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
}

// A reduction assigned to a row-major destination of its kept axes is folded straight into it
// (backend/host/reduce.hpp, assign_reduce); a destination that overlaps the operand, a strided
// one, or one in another axis order takes the temporary, with the same values.
TEST_CASE("a reduction assigned into its own operand's memory, a strided view or another order") {
  auto rng = seeded(13);
  const double eps = std::numeric_limits<float>::epsilon();
  for (int trial = 0; trial < 8; ++trial) {
    const index_t ni = draw_extent(rng, 2) + 1, nj = draw_extent(rng, 2);
    CAPTURE(ni);
    CAPTURE(nj);
    nax::Array<float, i, j> a({ni, nj});
    fill_values(rng, a.data(), a.size(), reduction::sum, values::plain);
    const auto at = einsum_ref::from_nax<real>(a);
    const auto e = einsum_ref::reduce(at, {"i"}, reduction::sum);
    const auto bound = einsum_ref::error_bound(at, {"i"}, reduction::sum, eps);
    // Into a fresh row-major array (the direct path).
    nax::Array<float, j> fresh = nax::sum<i>(a * 1.f);
    einsum_ref::check_close(fresh, e, &bound);
    // Into every other element of a wider array (strided: the temporary).
    nax::Array<float, j> wide({2 * nj});
    nax::ArrayView<float, j> every_other(wide.data(), {nj}, {2});
    every_other.assign(nax::sum<i>(a));
    einsum_ref::check_close(every_other, e, &bound);
    // Into a's own first row, which the sum reads (the temporary: every column's sum is taken
    // before row 0 changes).
    nax::ArrayView<float, j> row0(a.data(), {nj});
    row0.assign(nax::sum<i>(a));
    einsum_ref::check_close(row0, e, &bound);
    // Into a's first column, from a's transpose (kept axis i, strided by nj).
    nax::Array<float, i, j> b({ni, nj});
    fill_values(rng, b.data(), b.size(), reduction::max, values::plain);
    const auto bt = einsum_ref::from_nax<real>(b);
    if (nj > 0) {
      const auto m = einsum_ref::reduce(bt, {"j"}, reduction::max);
      nax::ArrayView<float, i> column0(b.data(), {ni}, {nj});
      column0.assign(nax::max<j>(b));
      einsum_ref::check_close(column0, m);
    }
  }
}

// ---- Large arrays: the multi-threaded paths -----------------------------------------------------

TEST_CASE("sums, max, mean and argmax of a 300 x 50000 float array match double-precision loops") {
  const index_t rows = 300, cols = 50000;
  auto x = big_array<i, j>({rows, cols}, 42, -1.f, 1.f);
  std::vector<double> row_sum(rows, 0), row_abs(rows, 0), col_sum(cols, 0), col_abs(cols, 0);
  std::vector<float> col_max(cols, -std::numeric_limits<float>::infinity());
  std::vector<std::int32_t> row_argmax(rows, 0);
  double total = 0, total_abs = 0;
  for (index_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    for (index_t c = 0; c < cols; ++c) {
      double v = row[c];
      row_sum[r] += v, row_abs[r] += std::fabs(v);
      col_sum[c] += v, col_abs[c] += std::fabs(v);
      col_max[c] = std::max(col_max[c], row[c]);
      if (row[c] > row[row_argmax[r]]) row_argmax[r] = static_cast<std::int32_t>(c);
    }
    total += row_sum[r], total_abs += row_abs[r];
  }
  // Over the contiguous axis: one output per row.
  nax::Array<float, i> s_inner = nax::sum<j>(x);
  int bad = 0;
  for (index_t r = 0; r < rows; ++r) bad += std::fabs(s_inner(r) - row_sum[r]) > 1e-5 * row_abs[r];
  CHECK(bad == 0);
  nax::Array<float, i> m_inner = nax::mean<j>(x);
  bad = 0;
  for (index_t r = 0; r < rows; ++r) bad += std::fabs(m_inner(r) - row_sum[r] / cols) > 1e-5 * row_abs[r] / cols;
  CHECK(bad == 0);
  // Over the outer axis: whole rows accumulate, split across threads.
  nax::Array<float, j> s_outer = nax::sum<i>(x);
  bad = 0;
  for (index_t c = 0; c < cols; ++c) bad += std::fabs(s_outer(c) - col_sum[c]) > 1e-5 * col_abs[c];
  CHECK(bad == 0);
  nax::Array<float, j> mx_outer = nax::max<i>(x);
  bad = 0;
  for (index_t c = 0; c < cols; ++c) bad += mx_outer(c) != col_max[c];
  CHECK(bad == 0);
  // Over everything.
  CHECK(std::fabs(nax::sum(x).item() - total) <= 1e-5 * total_abs);
  // argmax along the contiguous axis.
  nax::Array<std::int32_t, i> am = nax::argmax<j>(x);
  bad = 0;
  for (index_t r = 0; r < rows; ++r) bad += am(r) != row_argmax[r];
  CHECK(bad == 0);
  // A NaN anywhere in a column makes its max NaN, whichever thread holds it.
  x(0, 7) = std::numeric_limits<float>::quiet_NaN();
  x(rows - 1, cols - 1) = std::numeric_limits<float>::quiet_NaN();
  x(150, 30001) = std::numeric_limits<float>::quiet_NaN();
  nax::Array<float, j> mx_nan = nax::max<i>(x);
  CHECK(std::isnan(mx_nan(7)));
  CHECK(std::isnan(mx_nan(cols - 1)));
  CHECK(std::isnan(mx_nan(30001)));
  CHECK(mx_nan(8) == col_max[8]);
  CHECK(std::isnan(nax::max(x).item()));
  CHECK(std::isnan(nax::min(x).item()));
}

TEST_CASE("a few large groups (3 x 200 x 20000): rows split across threads into partial results") {
  const index_t g = 3, m = 200, n = 20000;
  auto x = big_array<k, i, j>({g, m, n}, 43, 0.f, 1.f);
  std::vector<double> group_sum(g, 0), inner_kept(g * n, 0);
  for (index_t a = 0; a < g; ++a)
    for (index_t b = 0; b < m; ++b)
      for (index_t c = 0; c < n; ++c) {
        double v = x.data()[(a * m + b) * n + c];
        group_sum[a] += v;
        inner_kept[a * n + c] += v;
      }
  nax::Array<float, k> s = nax::sum<i, j>(x);
  for (index_t a = 0; a < g; ++a) CHECK(s(a) == doctest::Approx(group_sum[a]).epsilon(1e-5));
  nax::Array<float, k, j> t = nax::sum<i>(x);
  int bad = 0;
  for (index_t a = 0; a < g; ++a)
    for (index_t c = 0; c < n; ++c) bad += std::fabs(t(a, c) - inner_kept[a * n + c]) > 1e-5 * inner_kept[a * n + c];
  CHECK(bad == 0);
}
