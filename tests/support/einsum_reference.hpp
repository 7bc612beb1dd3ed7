// Plain reference loops for nax's reductions and contractions, independent of nax's own
// evaluation: dense tensors with run-time axis names, an einsum over names, elementwise maps
// that broadcast by name, reductions (sum, prod, max, min, mean, logsumexp, argmax, argmin),
// and a comparison of a nax Array against a reference tensor BY NAME with an error bound per
// element. Also compile-time helpers to draw axis orders and subsets of an axis list.
// Used by tests/expr/reduce_test.cpp, tests/expr/contract_test.cpp and tests/cblas/.
#pragma once
#include "reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace einsum_ref {

using nax::index_t;

// ---- Dense tensors with named axes ---------------------------------------------------------

// Row-major in `names` order; values of the reference type R (long double for floating
// inputs, a wide integer for integer inputs).
template <class R>
struct tensor {
  std::vector<std::string> names;
  std::vector<index_t> extents;
  std::vector<R> values;

  tensor() = default;
  tensor(std::vector<std::string> n, std::vector<index_t> e, R fill = R{})
      : names(std::move(n)), extents(std::move(e)), values(static_cast<std::size_t>(count(extents)), fill) {}

  static index_t count(const std::vector<index_t>& e) {
    index_t n = 1;
    for (index_t x : e) n *= x;
    return n;
  }
  index_t size() const { return static_cast<index_t>(values.size()); }
  int position(const std::string& name) const {
    for (std::size_t k = 0; k < names.size(); ++k)
      if (names[k] == name) return static_cast<int>(k);
    return -1;
  }
  index_t extent(const std::string& name) const {
    int k = position(name);
    if (k < 0) throw std::logic_error("einsum_ref: no axis " + name);
    return extents[static_cast<std::size_t>(k)];
  }
  std::vector<index_t> strides() const {
    std::vector<index_t> s(names.size(), 1);
    index_t run = 1;
    for (std::size_t k = names.size(); k-- > 0;) {
      s[k] = run;
      run *= extents[k];
    }
    return s;
  }
  // The stride of each of `along` in this tensor (0 where this tensor lacks the name).
  std::vector<index_t> strides_along(const std::vector<std::string>& along) const {
    auto s = strides();
    std::vector<index_t> out(along.size(), 0);
    for (std::size_t k = 0; k < along.size(); ++k) {
      int p = position(along[k]);
      if (p >= 0) out[k] = s[static_cast<std::size_t>(p)];
    }
    return out;
  }
};

// The reference type of an element type: long double for floating types, int64 / uint64
// for integers, int64 for bool.
template <class T>
using ref_t = std::conditional_t<std::is_floating_point_v<T>, long double,
                                 std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>, std::uint64_t,
                                                    std::int64_t>>;

// Reads a nax Array or ArrayView through its data pointer and strides (not nax's indexing).
template <class R, nax_test::array_or_view V>
tensor<R> from_nax(const V& v) {
  tensor<R> out(nax_test::names_of(typename V::axes_type{}),
                std::vector<index_t>(v.extents().begin(), v.extents().end()));
  const std::size_t rank = out.names.size();
  std::vector<index_t> idx(rank, 0);
  for (index_t flat = 0; flat < out.size(); ++flat) {
    index_t offset = 0;
    for (std::size_t k = 0; k < rank; ++k) offset += idx[k] * v.strides()[k];
    out.values[static_cast<std::size_t>(flat)] = static_cast<R>(v.data()[offset]);
    for (std::size_t k = rank; k-- > 0;) {
      if (++idx[k] < out.extents[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// Calls f(offsets) for every index of the space `extents`, where offsets[t] = sum over axes
// of index * strides[t][axis] (row-major odometer; nothing when an extent is 0).
template <std::size_t K, class F>
void for_space(const std::vector<index_t>& extents, const std::array<std::vector<index_t>, K>& strides, F&& f) {
  for (index_t e : extents)
    if (e == 0) return;
  const std::size_t n = extents.size();
  std::vector<index_t> idx(n, 0);
  std::array<index_t, K> off{};
  while (true) {
    f(off);
    std::size_t k = n;
    while (true) {
      if (k == 0) return;
      --k;
      if (++idx[k] < extents[k]) {
        for (std::size_t t = 0; t < K; ++t) off[t] += strides[t][k];
        break;
      }
      for (std::size_t t = 0; t < K; ++t) off[t] -= strides[t][k] * (extents[k] - 1);
      idx[k] = 0;
    }
  }
}

// Extent of each name, from whichever tensor has it (they must agree).
template <class R1, class R2>
std::vector<index_t> extents_of_names(const std::vector<std::string>& names, const tensor<R1>& a, const tensor<R2>& b) {
  std::vector<index_t> out;
  for (const auto& n : names) {
    int pa = a.position(n), pb = b.position(n);
    if (pa >= 0 && pb >= 0 && a.extents[pa] != b.extents[pb])
      throw std::logic_error("einsum_ref: extents of " + n + " differ");
    if (pa >= 0) out.push_back(a.extents[pa]);
    else if (pb >= 0) out.push_back(b.extents[pb]);
    else throw std::logic_error("einsum_ref: no operand has axis " + n);
  }
  return out;
}

// out[out_names] = sum over `contracted` of a * b (every other name shared by a and b is a
// batch axis, kept). The plain einsum loop.
template <class R>
tensor<R> einsum(const tensor<R>& a, const tensor<R>& b, const std::vector<std::string>& contracted,
                 const std::vector<std::string>& out_names) {
  tensor<R> out(out_names, extents_of_names(out_names, a, b));
  std::vector<std::string> space = out_names;
  space.insert(space.end(), contracted.begin(), contracted.end());
  const auto ext = extents_of_names(space, a, b);
  std::array<std::vector<index_t>, 3> st{out.strides_along(space), a.strides_along(space), b.strides_along(space)};
  for_space(ext, st, [&](const std::array<index_t, 3>& o) { out.values[o[0]] += a.values[o[1]] * b.values[o[2]]; });
  return out;
}

// Elementwise f(a, b) broadcast by name: axes of a, then those of b that a lacks.
template <class R, class F>
tensor<R> map2(const tensor<R>& a, const tensor<R>& b, F&& f) {
  std::vector<std::string> names = a.names;
  for (const auto& n : b.names)
    if (a.position(n) < 0) names.push_back(n);
  tensor<R> out(names, extents_of_names(names, a, b));
  std::array<std::vector<index_t>, 3> st{out.strides(), a.strides_along(names), b.strides_along(names)};
  for_space(out.extents, st, [&](const std::array<index_t, 3>& o) { out.values[o[0]] = f(a.values[o[1]], b.values[o[2]]); });
  return out;
}
template <class R, class F>
tensor<R> map1(tensor<R> a, F&& f) {
  for (auto& v : a.values) v = f(v);
  return a;
}
// The same values with the axes in another order (by name).
template <class R>
tensor<R> permute(const tensor<R>& a, const std::vector<std::string>& names) {
  tensor<R> out(names, extents_of_names(names, a, a));
  std::array<std::vector<index_t>, 2> st{out.strides(), a.strides_along(names)};
  for_space(out.extents, st, [&](const std::array<index_t, 2>& o) { out.values[o[0]] = a.values[o[1]]; });
  return out;
}
// Elements begin, begin + step, ... below end along `name`.
template <class R>
tensor<R> slice(const tensor<R>& a, const std::string& name, index_t begin, index_t end, index_t step) {
  auto ext = a.extents;
  int p = a.position(name);
  ext[p] = (end - begin + step - 1) / step;
  tensor<R> out(a.names, ext);
  auto src = a.strides();
  index_t base = begin * src[p];
  src[p] *= step;
  std::array<std::vector<index_t>, 2> st{out.strides(), src};
  for_space(out.extents, st, [&](const std::array<index_t, 2>& o) { out.values[o[0]] = a.values[base + o[1]]; });
  return out;
}

// ---- Reductions ---------------------------------------------------------------------------

enum class reduction { sum, prod, max, min, mean, logsumexp };

inline const char* to_string(reduction r) {
  switch (r) {
    case reduction::sum: return "sum";
    case reduction::prod: return "prod";
    case reduction::max: return "max";
    case reduction::min: return "min";
    case reduction::mean: return "mean";
    case reduction::logsumexp: return "logsumexp";
  }
  return "?";
}

// One reduction of a list of values in the reference type, NaN-propagating for max and min
// (numpy / JAX semantics); empty: sum 0, prod 1, mean NaN, logsumexp -inf.
template <class R>
R reduce_values(reduction op, const std::vector<R>& v) {
  switch (op) {
    case reduction::sum: return std::accumulate(v.begin(), v.end(), R(0));
    case reduction::prod: {
      R p = 1;
      for (R x : v) p *= x;
      return p;
    }
    case reduction::max:
    case reduction::min: {
      if (v.empty()) throw std::logic_error("einsum_ref: max/min of nothing");
      R best = v[0];
      for (R x : v) {
        if constexpr (std::is_floating_point_v<R>) {
          if (std::isnan(x)) return x;
        }
        if (op == reduction::max ? x > best : x < best) best = x;
      }
      return best;
    }
    case reduction::mean:
      if constexpr (std::is_floating_point_v<R>) {
        if (v.empty()) return std::numeric_limits<R>::quiet_NaN();
        return std::accumulate(v.begin(), v.end(), R(0)) / static_cast<R>(v.size());
      } else {
        throw std::logic_error("einsum_ref: integer mean: reduce in a floating reference type");
      }
    case reduction::logsumexp:
      if constexpr (std::is_floating_point_v<R>) {
        R m = -std::numeric_limits<R>::infinity();
        for (R x : v) {
          if (std::isnan(x)) return x;
          m = std::max(m, x);
        }
        if (v.empty() || std::isinf(m)) {  // all -inf (or empty): -inf; some +inf: +inf
          return m;
        }
        R s = 0;
        for (R x : v) s += std::exp(x - m);
        return m + std::log(s);
      } else {
        throw std::logic_error("einsum_ref: integer logsumexp: reduce in a floating reference type");
      }
  }
  return R(0);
}

// The values of x grouped by the axes of x not in `reduced` (kept in x's order): one list of
// reduced values per output element.
template <class R>
std::pair<tensor<R>, std::vector<std::vector<R>>> group_by_kept(const tensor<R>& x,
                                                                const std::vector<std::string>& reduced) {
  std::vector<std::string> kept;
  for (const auto& n : x.names)
    if (std::find(reduced.begin(), reduced.end(), n) == reduced.end()) kept.push_back(n);
  tensor<R> out(kept, extents_of_names(kept, x, x));
  std::vector<std::vector<R>> groups(static_cast<std::size_t>(out.size()));
  std::array<std::vector<index_t>, 2> st{x.strides(), out.strides_along(x.names)};
  for_space(x.extents, st, [&](const std::array<index_t, 2>& o) { groups[o[1]].push_back(x.values[o[0]]); });
  return {std::move(out), std::move(groups)};
}

template <class R>
tensor<R> reduce(const tensor<R>& x, const std::vector<std::string>& reduced, reduction op) {
  auto [out, groups] = group_by_kept(x, reduced);
  for (std::size_t o = 0; o < groups.size(); ++o) out.values[o] = reduce_values(op, groups[o]);
  return out;
}

// A bound on the rounding error of each element of reduce(x, reduced, op) computed in a
// type with machine epsilon eps: a multiple of eps times the magnitudes involved. 0 for
// max and min (exact). Loose enough for any summation order, tight enough that a wrong
// element (an O(1) error) fails.
template <class R>
tensor<R> error_bound(const tensor<R>& x, const std::vector<std::string>& reduced, reduction op, double eps) {
  auto [out, groups] = group_by_kept(x, reduced);
  for (std::size_t o = 0; o < groups.size(); ++o) {
    const auto& v = groups[o];
    R n = static_cast<R>(v.size());
    R abs_sum = 0;
    for (R x : v) abs_sum += std::abs(x);
    R e = static_cast<R>(eps);
    R bound = 0;
    switch (op) {
      case reduction::sum: bound = 2 * e * (n + 2) * abs_sum; break;
      case reduction::mean: bound = 2 * e * (n + 4) * (v.empty() ? 0 : abs_sum / n); break;
      case reduction::prod: bound = 2 * e * (n + 2) * std::abs(reduce_values(reduction::prod, v)); break;
      case reduction::max:
      case reduction::min: bound = 0; break;
      case reduction::logsumexp: {
        R r = v.empty() ? 0 : std::abs(reduce_values(reduction::logsumexp, v));
        bound = 4 * e * (n + 4) * (1 + (std::isfinite(r) ? r : 0));
        break;
      }
    }
    out.values[o] = bound;
  }
  return out;
}

// Index of the first largest (or smallest) element along `axis`; NaN counts as the extreme
// (its first occurrence), as jnp.argmax / jnp.argmin.
template <class R>
tensor<R> arg_reduce(const tensor<R>& x, const std::string& axis, bool largest) {
  auto [out, groups] = group_by_kept(x, {axis});
  for (std::size_t o = 0; o < groups.size(); ++o) {
    const auto& v = groups[o];
    std::size_t best = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      bool nan = false;
      if constexpr (std::is_floating_point_v<R>) nan = std::isnan(v[i]);
      if (nan) {
        best = i;
        break;
      }
      if (largest ? v[i] > v[best] : v[i] < v[best]) best = i;
    }
    out.values[o] = static_cast<R>(best);
  }
  return out;
}

// ---- Comparison ---------------------------------------------------------------------------

inline std::string describe_index(const std::vector<std::string>& names, const std::vector<index_t>& idx) {
  std::ostringstream s;
  s << '{';
  for (std::size_t k = 0; k < names.size(); ++k) s << (k ? ", " : "") << names[k] << '=' << idx[k];
  s << '}';
  return s.str();
}

template <class R>
std::string describe_extents(const tensor<R>& t) {
  return describe_index(t.names, t.extents);
}

// Compares the nax array or view `actual` with `expected` by name (same set of names, any
// order): extents, then every element within bound (per element, may be null) + atol.
// NaN matches NaN; infinities must match exactly; integers compare exactly by default.
// Reports the first few mismatches with their named index.
template <nax_test::array_or_view V, class R>
bool check_close(const V& actual, const tensor<R>& expected, const tensor<R>* bound = nullptr, double atol = 0.0) {
  using T = typename V::value_type;
  const auto got = from_nax<R>(actual);
  std::vector<std::string> sorted_got = got.names, sorted_expected = expected.names;
  std::sort(sorted_got.begin(), sorted_got.end());
  std::sort(sorted_expected.begin(), sorted_expected.end());
  if (sorted_got != sorted_expected) {
    FAIL_CHECK("axis names differ: nax gives " << describe_extents(got) << ", reference "
                                               << describe_extents(expected));
    return false;
  }
  for (std::size_t k = 0; k < expected.names.size(); ++k)
    if (got.extent(expected.names[k]) != expected.extents[k]) {
      FAIL_CHECK("extents differ: nax gives " << describe_extents(got) << ", reference "
                                              << describe_extents(expected));
      return false;
    }
  int mismatches = 0;
  const auto got_strides = got.strides_along(expected.names);
  const std::size_t rank = expected.names.size();
  std::vector<index_t> idx(rank, 0);
  for (index_t flat = 0; flat < expected.size(); ++flat) {
    index_t g = 0;
    for (std::size_t k = 0; k < rank; ++k) g += idx[k] * got_strides[k];
    R a = got.values[static_cast<std::size_t>(g)];
    R e = expected.values[static_cast<std::size_t>(flat)];
    bool ok;
    if constexpr (std::is_floating_point_v<R>) {
      if (std::isnan(a) || std::isnan(e)) ok = std::isnan(a) && std::isnan(e);
      else if (std::isinf(a) || std::isinf(e)) ok = a == e;
      else {
        R allowed = static_cast<R>(atol) + (bound ? bound->values[static_cast<std::size_t>(flat)] : R(0));
        ok = std::abs(a - e) <= allowed;
      }
    } else {
      ok = a == e || (atol > 0 && static_cast<double>(a > e ? a - e : e - a) <= atol);
    }
    if (!ok && ++mismatches <= 4) {
      std::ostringstream s;
      s.precision(std::numeric_limits<long double>::max_digits10);
      s << "mismatch at " << describe_index(expected.names, idx) << ": nax gives " << static_cast<long double>(a)
        << ", reference " << static_cast<long double>(e);
      if (bound) s << " (allowed error " << static_cast<long double>(bound->values[flat]) + atol << ")";
      s << ", extents " << describe_extents(expected) << ", element type of nax's result has size " << sizeof(T);
      FAIL_CHECK(s.str());
    }
    for (std::size_t k = rank; k-- > 0;) {
      if (++idx[k] < expected.extents[k]) break;
      idx[k] = 0;
    }
  }
  if (mismatches > 4) FAIL_CHECK(mismatches << " mismatches of " << expected.size() << " elements");
  return mismatches == 0;
}

// ---- Contractions (shared by tests/expr/contract_test.cpp and tests/cblas/) -------------------

// A random element for contraction tests: floating in [-1, 1]; int32 in [-1000, 1000] and
// int64 in [-2^24, 2^24] (sums of products beyond float's and double's exact integers, still
// far from overflow for the sizes used); bool true or false.
template <class T>
T dot_element(nax_test::random_source& rng) {
  if constexpr (std::is_same_v<T, bool>) return rng.chance(0.5);
  else if constexpr (std::is_floating_point_v<T>) return rng.value<T>(T(-1), T(1));
  else if constexpr (sizeof(T) >= 8) return rng.value<T>(T(-(1 << 24)), T(1 << 24));
  else if constexpr (sizeof(T) >= 4) return rng.value<T>(T(-1000), T(1000));
  else return rng.value<T>();
}

template <class T, class L>
nax_test::array_of<T, L> dot_operand(nax_test::random_source& rng, const nax_test::index_map& sizes) {
  nax_test::array_of<T, L> out(nax_test::extents_in<L>(sizes));
  for (auto& v : out) v = dot_element<T>(rng);
  return out;
}

// Checks nax::dot<K...>(a, b) against the einsum loop on the reference tensors ra and rb
// (the same values as a and b, computed independently): the result's element type (given),
// its axis order (a's remaining axes, then b's remaining axes a lacks), every element
// (exact for integers; within a multiple of eps times sum |a| |b| for floating types).
template <class Expected, class... K, class EA, class EB, class R>
void check_dot(const EA& a, const EB& b, const tensor<R>& ra, const tensor<R>& rb) {
  auto result = nax::eval(nax::dot<K...>(a, b));
  using V = typename decltype(result)::value_type;
  static_assert(std::is_same_v<V, Expected>, "dot's element type");
  const std::vector<std::string> contracted{std::string(nax::axis_name<K>())...};
  auto is_contracted = [&](const std::string& n) {
    return std::find(contracted.begin(), contracted.end(), n) != contracted.end();
  };
  std::vector<std::string> out_names;
  for (const auto& n : ra.names)
    if (!is_contracted(n)) out_names.push_back(n);
  for (const auto& n : rb.names)
    if (!is_contracted(n) && ra.position(n) < 0) out_names.push_back(n);
  CHECK(nax_test::names_of(typename decltype(result)::axes_type{}) == out_names);
  const auto expected = einsum(ra, rb, contracted, out_names);
  const auto abs_of = [](R v) { return v < 0 ? -v : v; };
  auto bound = einsum(map1(ra, abs_of), map1(rb, abs_of), contracted, out_names);
  if constexpr (std::is_floating_point_v<V>) {
    index_t depth = 1;
    for (const auto& n : contracted) depth *= ra.extent(n);
    const R eps = static_cast<R>(std::numeric_limits<V>::epsilon());
    for (auto& v : bound.values) v *= 2 * eps * static_cast<R>(depth + 2);
  } else {
    for (auto& v : bound.values) v = 0;
  }
  check_close(result, expected, &bound);
}

// dot<K...> of random arrays with axes LA (element type TA) and LB (TB), `trials` times, with
// the extent of each axis name drawn by extent_of(name) (a shared name has one extent).
template <class TA, class TB, class LA, class LB, class... K, class Draw>
void check_dot_random(nax_test::random_source& rng, int trials, Draw&& extent_of) {
  using V = std::conditional_t<std::is_same_v<nax::promote_t<TA, TB>, bool>, std::int32_t, nax::promote_t<TA, TB>>;
  using R = ref_t<V>;
  for (int trial = 0; trial < trials; ++trial) {
    nax_test::index_map sizes;
    for (const auto& n : nax_test::names_of(LA{})) sizes[n] = extent_of(n);
    for (const auto& n : nax_test::names_of(LB{}))
      if (!sizes.count(n)) sizes[n] = extent_of(n);
    CAPTURE(nax_test::describe(sizes));
    auto a = dot_operand<TA, LA>(rng, sizes);
    auto b = dot_operand<TB, LB>(rng, sizes);
    check_dot<V, K...>(a, b, from_nax<R>(a), from_nax<R>(b));
  }
}

// Extents for GEMM-shaped products: 0, 1, 2 and sizes around the kernel's register tiles and
// cache blocks (17, 67, 130).
inline index_t gemm_extent(nax_test::random_source& rng) {
  static constexpr index_t pool[] = {0, 1, 1, 2, 5, 17, 17, 67, 67, 130};
  return pool[rng.integer(0, 9)];
}
// Small extents (batch axes, several contracted axes): 0 and 1 often.
inline index_t small_extent(nax_test::random_source& rng) {
  static constexpr index_t pool[] = {0, 1, 1, 2, 3, 3, 4, 5, 7, 9};
  return pool[rng.integer(0, 9)];
}

// ---- Compile-time axis lists --------------------------------------------------------------

constexpr std::size_t factorial(std::size_t n) { return n <= 1 ? 1 : n * factorial(n - 1); }

// The I-th permutation (lexicographic, I taken modulo N!) of 0..N-1.
template <std::size_t N>
constexpr std::array<std::size_t, N> nth_permutation_indices(std::size_t i) {
  std::array<std::size_t, N> pool{}, out{};
  for (std::size_t k = 0; k < N; ++k) pool[k] = k;
  i %= factorial(N);
  std::size_t left = N;
  for (std::size_t k = 0; k < N; ++k) {
    std::size_t f = factorial(N - 1 - k);
    std::size_t pick = i / f;
    i %= f;
    out[k] = pool[pick];
    for (std::size_t j = pick; j + 1 < left; ++j) pool[j] = pool[j + 1];
    --left;
  }
  return out;
}

template <class L, std::size_t I, class Seq = std::make_index_sequence<L::size>>
struct nth_permutation;
template <class... As, std::size_t I, std::size_t... K>
struct nth_permutation<nax::axes<As...>, I, std::index_sequence<K...>> {
  static constexpr auto p = nth_permutation_indices<sizeof...(As)>(I);
  using type = nax::axes<nax::detail::at_t<p[K], nax::axes<As...>>...>;
};
// The I-th order (modulo n!) of the names in L: a pseudo-random axis order fixed at compile time.
template <class L, std::size_t I>
using nth_permutation_t = typename nth_permutation<L, I>::type;

// The names of L whose bit is set in Mask, in L's order.
template <class L, std::size_t Mask>
struct subset;
template <class... As, std::size_t Mask>
struct subset<nax::axes<As...>, Mask> {
  template <std::size_t... K>
  static auto pick(std::index_sequence<K...>)
      -> nax::detail::tuple_to_axes_t<decltype(std::tuple_cat(
          std::conditional_t<((Mask >> K) & 1) != 0, std::tuple<As>, std::tuple<>>{}...))>;
  using type = decltype(pick(std::index_sequence_for<As...>{}));
};
template <class L, std::size_t Mask>
using subset_t = typename subset<L, Mask>::type;

// The first N names of L.
template <class L, std::size_t N>
using first_t = subset_t<L, (std::size_t{1} << N) - 1>;

// A deterministic pseudo-random number from a few integers (for choosing orders at compile time).
constexpr std::size_t mix(std::size_t a, std::size_t b = 0, std::size_t c = 0) {
  std::uint64_t x = 0x9e3779b97f4a7c15ull ^ (a * 0xbf58476d1ce4e5b9ull) ^ (b * 0x94d049bb133111ebull) ^ (c + 0x632be5ab);
  x ^= x >> 31;
  x *= 0xd6e8feb86659fd35ull;
  x ^= x >> 29;
  return static_cast<std::size_t>(x);
}

template <class... As>
std::vector<std::string> names(nax::axes<As...> list) {
  return nax_test::names_of(list);
}

// A tensor of the given names and extents (by name lookup in sizes) filled by gen().
template <class R, class L, class G>
tensor<R> make_tensor(const nax_test::index_map& sizes, G&& gen) {
  auto n = nax_test::names_of(L{});
  auto e = nax_test::extents_in<L>(sizes);
  tensor<R> out(n, std::vector<index_t>(e.begin(), e.end()));
  for (auto& v : out.values) v = gen();
  return out;
}

}  // namespace einsum_ref
