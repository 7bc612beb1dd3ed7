// Shared helpers for nax's property tests: a seeded random source (extents that hit 0 and 1
// often, random values), reading an Array or ArrayView by axis NAME through its raw pointer
// and strides (independent of nax's own indexing), loops over every index of an axis list,
// approximate comparison, and every permutation of a few axis names.
//
// Typical use:
//   nax_test::random_source rng;                          // fixed seed
//   auto sizes = rng.sizes({"i", "j"});                   // {"i": 0..5, "j": 0..5}
//   auto a = nax_test::random_array<float, i, j>(rng, nax_test::extents_in<nax::axes<i, j>>(sizes));
//   nax::Array<float, j, i> out = a * 2.f;
//   nax_test::check_all(out, [&](const nax_test::index_map& at) { return 2.f * nax_test::at(a, at); });
#pragma once
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace nax_test {

using nax::index_t;

// Axis name -> index (or axis name -> extent, when describing sizes).
using index_map = std::map<std::string, index_t, std::less<>>;

inline constexpr std::uint64_t default_seed = 0x6e61785f74657374ull;  // "nax_test"

// Readable form of an index map, for failure messages: "{i=1, j=0}".
inline std::string describe(const index_map& m) {
  std::ostringstream out;
  out << '{';
  bool first = true;
  for (const auto& [name, value] : m) {
    out << (first ? "" : ", ") << name << '=' << value;
    first = false;
  }
  out << '}';
  return out.str();
}

// Random extents and values from a fixed seed, so failures reproduce.
class random_source {
 public:
  explicit random_source(std::uint64_t seed = default_seed) : engine_(seed) {}

  std::mt19937_64& engine() { return engine_; }

  // Uniform integer in [lo, hi].
  index_t integer(index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(engine_); }
  // True with probability p.
  bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(engine_) < p; }

  // An extent in [0, max]; 0 and 1 each come up about one time in five.
  index_t extent(index_t max = 5) {
    index_t pick = integer(0, 9);
    if (pick < 2 || max <= 1) return std::min<index_t>(pick < 2 ? 0 : 1, max);
    if (pick < 4) return 1;
    return integer(0, max);
  }
  // An extent in [1, max]; 1 comes up about one time in four.
  index_t nonzero_extent(index_t max = 5) {
    if (max <= 1 || integer(0, 3) == 0) return 1;
    return integer(1, max);
  }
  template <std::size_t N>
  std::array<index_t, N> extents(index_t max = 5) {
    std::array<index_t, N> out{};
    for (auto& e : out) e = extent(max);
    return out;
  }
  template <std::size_t N>
  std::array<index_t, N> nonzero_extents(index_t max = 5) {
    std::array<index_t, N> out{};
    for (auto& e : out) e = nonzero_extent(max);
    return out;
  }
  // A random extent for each axis name: name -> extent.
  index_map sizes(std::initializer_list<std::string_view> names, index_t max = 5) {
    index_map out;
    for (auto name : names) out[std::string(name)] = extent(max);
    return out;
  }
  index_map nonzero_sizes(std::initializer_list<std::string_view> names, index_t max = 5) {
    index_map out;
    for (auto name : names) out[std::string(name)] = nonzero_extent(max);
    return out;
  }

  // A random value in [lo, hi] (bool: lo or hi at random).
  template <class T>
  T value(T lo, T hi) {
    if constexpr (std::is_same_v<T, bool>) {
      return chance(0.5) ? hi : lo;
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::uniform_real_distribution<T>(lo, hi)(engine_);
    } else if constexpr (sizeof(T) == 1) {
      return static_cast<T>(std::uniform_int_distribution<int>(lo, hi)(engine_));
    } else {
      return std::uniform_int_distribution<T>(lo, hi)(engine_);
    }
  }
  // A random value in a default range: floating [-4, 4], signed [-20, 20], unsigned [0, 40],
  // bool true or false.
  template <class T>
  T value() {
    if constexpr (std::is_same_v<T, bool>) return chance(0.5);
    else if constexpr (std::is_floating_point_v<T>) return value<T>(T(-4), T(4));
    else if constexpr (std::is_signed_v<T>) return value<T>(T(-20), T(20));
    else return value<T>(T(0), T(40));
  }

 private:
  std::mt19937_64 engine_;
};

// ---- Arrays and views, read independently of nax's indexing -------------------------------

template <class V>
concept array_or_view = requires(const V& v) {
  typename V::axes_type;
  typename V::value_type;
  v.data();
  v.extents();
  v.strides();
};

template <class T, class L>
struct array_of_impl;
template <class T, class... As>
struct array_of_impl<T, nax::axes<As...>> {
  using type = nax::Array<T, As...>;
};
// nax::Array<T, As...> for L = nax::axes<As...>.
template <class T, class L>
using array_of = typename array_of_impl<T, L>::type;

// The names of an axis list, in order.
template <class... As>
std::vector<std::string> names_of(nax::axes<As...>) {
  return {std::string(nax::axis_name<As>())...};
}

// Extents in the order of axis list L, from a name -> extent map (names missing: error).
template <class L>
std::array<index_t, L::size> extents_in(const index_map& sizes) {
  std::array<index_t, L::size> out{};
  auto names = names_of(L{});
  for (std::size_t k = 0; k < L::size; ++k) {
    auto it = sizes.find(names[k]);
    if (it == sizes.end()) throw std::out_of_range("nax_test::extents_in: no extent for axis " + names[k]);
    out[k] = it->second;
  }
  return out;
}

// The extents of an array or view as a name -> extent map.
template <array_or_view V>
index_map sizes_of(const V& v) {
  index_map out;
  auto names = names_of(typename V::axes_type{});
  for (std::size_t k = 0; k < names.size(); ++k) out[names[k]] = v.extents()[k];
  return out;
}

// The element of v at the named index (every axis of v must be in idx; other names are
// ignored). Reads data() + sum(index * stride) itself; throws std::out_of_range on a missing
// name or an index outside the extent.
template <array_or_view V>
typename V::value_type at(const V& v, const index_map& idx) {
  auto names = names_of(typename V::axes_type{});
  index_t offset = 0;
  for (std::size_t k = 0; k < names.size(); ++k) {
    auto it = idx.find(names[k]);
    if (it == idx.end()) throw std::out_of_range("nax_test::at: no index for axis " + names[k]);
    if (it->second < 0 || it->second >= v.extents()[k])
      throw std::out_of_range("nax_test::at: index " + std::to_string(it->second) + " out of range for axis " +
                              names[k] + " of extent " + std::to_string(v.extents()[k]));
    offset += it->second * v.strides()[k];
  }
  return v.data()[offset];
}

// Calls f(const index_map&) for every index of the named extents (row-major in the names'
// order; nothing when an extent is 0; once for no names).
inline void for_each_index(const std::vector<std::string>& names, const std::vector<index_t>& extents,
                           const std::function<void(const index_map&)>& f) {
  for (index_t e : extents)
    if (e == 0) return;
  index_map idx;
  for (const auto& n : names) idx[n] = 0;
  std::vector<index_t> counter(names.size(), 0);
  while (true) {
    f(idx);
    std::size_t k = names.size();
    while (k > 0) {
      --k;
      if (++counter[k] < extents[k]) {
        idx[names[k]] = counter[k];
        break;
      }
      counter[k] = 0;
      idx[names[k]] = 0;
      if (k == 0) return;
    }
    if (names.empty()) return;
  }
}
// Over the axes of list L, with extents taken from a name -> extent map.
template <class... As, class F>
void for_each_index(nax::axes<As...> list, const index_map& sizes, F&& f) {
  auto ext = extents_in<nax::axes<As...>>(sizes);
  for_each_index(names_of(list), std::vector<index_t>(ext.begin(), ext.end()), std::function<void(const index_map&)>(f));
}
// Over every index of an array or view.
template <array_or_view V, class F>
void for_each_index(const V& v, F&& f) {
  for_each_index(names_of(typename V::axes_type{}), std::vector<index_t>(v.extents().begin(), v.extents().end()),
                 std::function<void(const index_map&)>(f));
}

// Fills every element of an array or view with rng.value<T>() (or values in [lo, hi]).
template <class T, class... As>
void fill_random(const nax::ArrayView<T, As...>& v, random_source& rng) {
  for_each_index(v, [&](const index_map& idx) {
    auto names = names_of(nax::axes<As...>{});
    index_t offset = 0;
    for (std::size_t k = 0; k < names.size(); ++k) offset += idx.at(names[k]) * v.strides()[k];
    v.data()[offset] = rng.template value<T>();
  });
}
template <class T, class... As>
void fill_random(const nax::ArrayView<T, As...>& v, random_source& rng, T lo, T hi) {
  for_each_index(v, [&](const index_map& idx) {
    auto names = names_of(nax::axes<As...>{});
    index_t offset = 0;
    for (std::size_t k = 0; k < names.size(); ++k) offset += idx.at(names[k]) * v.strides()[k];
    v.data()[offset] = rng.template value<T>(lo, hi);
  });
}
template <class T, class... As>
void fill_random(nax::Array<T, As...>& a, random_source& rng) {
  for (auto& x : a) x = rng.template value<T>();
}
template <class T, class... As>
void fill_random(nax::Array<T, As...>& a, random_source& rng, T lo, T hi) {
  for (auto& x : a) x = rng.template value<T>(lo, hi);
}

// An Array<T, As...> of the given extents (declared order) filled with random values.
template <class T, class... As>
nax::Array<T, As...> random_array(random_source& rng, const std::array<index_t, sizeof...(As)>& extents) {
  nax::Array<T, As...> out(extents);
  fill_random(out, rng);
  return out;
}
template <class T, class... As>
nax::Array<T, As...> random_array(random_source& rng, const std::array<index_t, sizeof...(As)>& extents, T lo, T hi) {
  nax::Array<T, As...> out(extents);
  fill_random(out, rng, lo, hi);
  return out;
}
// The same, for an axis list type and a name -> extent map.
template <class T, class L>
array_of<T, L> random_array_of(random_source& rng, const index_map& sizes) {
  array_of<T, L> out(extents_in<L>(sizes));
  fill_random(out, rng);
  return out;
}
template <class T, class L>
array_of<T, L> random_array_of(random_source& rng, const index_map& sizes, T lo, T hi) {
  array_of<T, L> out(extents_in<L>(sizes));
  fill_random(out, rng, lo, hi);
  return out;
}

// An int index array of the given extents with values in [-n - 3, n + 3]: in range, negative
// (counted from the end), and out of range on both sides (for take and the scatters).
template <class... As>
nax::Array<int, As...> random_indices(random_source& rng, const std::array<index_t, sizeof...(As)>& extents, index_t n) {
  nax::Array<int, As...> a(extents);
  for (auto& x : a) x = static_cast<int>(rng.integer(-n - 3, n + 3));
  return a;
}

// ---- Comparison ---------------------------------------------------------------------------

// Default relative tolerance for a value type: exact for integers and bool.
template <class T>
constexpr double default_tolerance() {
  if constexpr (std::is_same_v<T, float>) return 2e-6;
  else if constexpr (std::is_floating_point_v<T>) return 1e-13;
  else return 0.0;
}

// |actual - expected| <= rel * max(|actual|, |expected|) + abs; NaN equals NaN, infinities
// must match exactly, integers and bool compare exactly when rel and abs are 0.
template <class A, class E>
bool approx_equal(A actual, E expected, double rel, double abs = 0.0) {
  if constexpr (std::is_floating_point_v<A> || std::is_floating_point_v<E>) {
    double a = static_cast<double>(actual), e = static_cast<double>(expected);
    if (std::isnan(a) || std::isnan(e)) return std::isnan(a) && std::isnan(e);
    if (std::isinf(a) || std::isinf(e)) return a == e;
    return std::fabs(a - e) <= rel * std::max(std::fabs(a), std::fabs(e)) + abs;
  } else {
    if (rel == 0.0 && abs == 0.0) return actual == expected;
    double a = static_cast<double>(actual), e = static_cast<double>(expected);
    return std::fabs(a - e) <= rel * std::max(std::fabs(a), std::fabs(e)) + abs;
  }
}
// With the default tolerance of A (relative; absolute = the same number, for values near 0).
template <class A, class E>
bool approx_equal(A actual, E expected) {
  return approx_equal(actual, expected, default_tolerance<A>(), default_tolerance<A>());
}

template <class T>
std::string show(T value) {
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10);
  if constexpr (std::is_same_v<T, bool>) out << (value ? "true" : "false");
  else if constexpr (sizeof(T) == 1) out << static_cast<int>(value);
  else out << value;
  return out.str();
}

// Compares every element of `actual` (array or view) with expected(const index_map&), which
// computes the reference value independently. Reports the first few mismatches through
// doctest (with the index and both values) and returns whether all matched.
template <array_or_view V, class F>
bool check_all(const V& actual, F&& expected, double rel, double abs) {
  int mismatches = 0;
  index_t count = 0;
  for_each_index(actual, [&](const index_map& idx) {
    ++count;
    auto a = at(actual, idx);
    auto e = expected(idx);
    if (!approx_equal(a, e, rel, abs)) {
      if (++mismatches <= 3) {
        FAIL_CHECK("mismatch at " << describe(idx) << ": nax gives " << show(a) << ", reference "
                                  << show(e) << " (extents " << describe(sizes_of(actual)) << ")");
      }
    }
  });
  CHECK_MESSAGE(mismatches == 0, mismatches << " mismatches in all, of " << count << " elements");
  return mismatches == 0;
}
template <array_or_view V, class F>
bool check_all(const V& actual, F&& expected) {
  using T = typename V::value_type;
  return check_all(actual, std::forward<F>(expected), default_tolerance<T>(), default_tolerance<T>());
}

// v's element at idx, with 0 for the axes of v that idx does not name (a broadcast axis).
template <array_or_view V>
double at_or_first(const V& v, index_map idx) {
  for (const auto& name : names_of(typename V::axes_type{}))
    if (!idx.count(name)) idx[name] = 0;
  return double(at(v, idx));
}

// Every element of a (an xmap output) against b (a vmap output, which may have more axes:
// vmap broadcasts an output that does not vary over a mapped axis, xmap replicates it).
template <class A, class B>
void check_same(const A& a, const B& b, double tolerance) {
  check_all(a, [&](const index_map& idx) { return at_or_first(b, idx); }, tolerance, tolerance);
}

// Checks that an array's (or view's) extents are, by name, the given ones.
template <array_or_view V>
bool check_sizes(const V& actual, const index_map& expected) {
  index_map got = sizes_of(actual);
  for (const auto& [name, extent] : got) {
    auto it = expected.find(name);
    if (it == expected.end() || it->second != extent) {
      FAIL_CHECK("extents differ: nax gives " << describe(got) << ", expected " << describe(expected));
      return false;
    }
  }
  return true;
}

// Runs f, expecting nax::shape_error whose what() contains every given fragment.
template <class F>
bool check_shape_error(F&& f, std::initializer_list<std::string_view> fragments) {
  try {
    f();
  } catch (const nax::shape_error& e) {
    std::string what = e.what();
    bool ok = true;
    for (auto frag : fragments) {
      if (what.find(frag) == std::string::npos) {
        FAIL_CHECK("shape_error message \"" << what << "\" lacks \"" << std::string(frag) << "\"");
        ok = false;
      }
    }
    return ok;
  } catch (const std::exception& e) {
    FAIL_CHECK("expected nax::shape_error, got another exception: " << e.what());
    return false;
  }
  FAIL_CHECK("expected nax::shape_error, nothing was thrown");
  return false;
}

// ---- Axis orders --------------------------------------------------------------------------

namespace detail {
template <class Head, class Tuple>
struct prepend_each;
template <class Head, class... Lists>
struct prepend_each<Head, std::tuple<Lists...>> {
  template <class L>
  struct one;
  template <class... Bs>
  struct one<nax::axes<Bs...>> {
    using type = nax::axes<Head, Bs...>;
  };
  using type = std::tuple<typename one<Lists>::type...>;
};

template <class List>
struct permutations;
template <>
struct permutations<nax::axes<>> {
  using type = std::tuple<nax::axes<>>;
};
// Permutations of As: for each A, A followed by each permutation of the others.
template <class... As>
struct permutations<nax::axes<As...>> {
  template <class A>
  using starting_with = typename prepend_each<
      A, typename permutations<nax::detail::difference_t<nax::axes<As...>, nax::axes<A>>>::type>::type;
  using type = decltype(std::tuple_cat(std::declval<starting_with<As>>()...));
};
}  // namespace detail

// Every order of the axis names As: a std::tuple of nax::axes<...> (n! of them).
template <class... As>
using permutations_t = typename detail::permutations<nax::axes<As...>>::type;

// Calls f(nax::axes<P...>{}) for every permutation P of As (As's own order first).
template <class... As, class F>
void for_each_permutation(F&& f) {
  std::apply([&](auto... orders) { (f(orders), ...); }, permutations_t<As...>{});
}

// Calls f(nax::axes<P...>{}) for `count` permutations of As drawn at random by rng (every
// permutation is compiled; only the drawn ones run).
template <class... As, class F>
void for_random_permutations(random_source& rng, int count, F&& f) {
  using all = permutations_t<As...>;
  constexpr std::size_t n = std::tuple_size_v<all>;
  for (int c = 0; c < count; ++c) {
    std::size_t pick = static_cast<std::size_t>(rng.integer(0, static_cast<index_t>(n) - 1));
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((I == pick ? (f(std::tuple_element_t<I, all>{}), 0) : 0), ...);
    }(std::make_index_sequence<n>{});
  }
}

}  // namespace nax_test
