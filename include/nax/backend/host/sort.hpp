// Sorting (expr/sort.hpp) over memory laid out [outer, n, inner] around A's position, as the
// scans (backend/host/scan.hpp). Written once for every backend (a backend supplies
// make_temporary, assign_in_context, run_sort and run_searchsorted):
//   - sort_into_temporary: the operand is written into a temporary of the node's axes, whose
//     lines along A are sorted in place (values) or give the positions (indices);
//   - searchsorted_into_temporary: the sorted operand with A innermost and the values, each in
//     a temporary, then one binary search per result element (search_position).
// The host sorts lines in parallel, each by an LSD radix sort of the total-order keys (sort_key;
// with the positions as payload for argsort): linear in n and stable; short lines by
// std::stable_sort.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "../../expr/sort.hpp"
#include "scan.hpp"

namespace nax::detail {

template <class C, class A, sort_result R, class Ctx>
auto sort_into_temporary(const Sort<C, A, R>& node, Ctx& ctx) {
  using T = typename C::value_type;
  using NA = typename Sort<C, A, R>::axes_type;
  auto values = make_temporary(temporary_of<T, NA>{}, node.extents(), ctx);
  assign_in_context(values.first, node.child, ctx);
  const auto [outer, inner] = scan_layout<A, NA>(node.extents());
  const index_t n = extent_of<A>(node);
  if constexpr (R == sort_result::values) {
    run_sort(values.first.data(), static_cast<index_t*>(nullptr), outer, n, inner, node.descending, node.total_order, -1,
             ctx);
    return values.second;
  } else {
    auto positions = make_temporary(temporary_of<index_t, NA>{}, node.extents(), ctx);
    run_sort(values.first.data(), positions.first.data(), outer, n, inner, node.descending, node.total_order,
             node.leading, ctx);
    return positions.second;
  }
}

// Where each result element of searchsorted finds its value and its sorted line (offsets into
// the two temporaries, by the result's row-major position).
template <std::size_t N>
struct search_plan {
  std::array<index_t, N> extents{}, value_stride{}, line_stride{};
  index_t n = 0;  // the sorted line's length
  bool right = false;
};

template <class T, std::size_t N>
NAX_HOST_DEVICE inline index_t search_position(const T* sorted, const T* values, const search_plan<N>& p, index_t at) {
  index_t value_at = 0, line_at = 0;
  for (std::size_t k = N; k-- > 0;) {
    const index_t i = at % p.extents[k];
    at /= p.extents[k];
    value_at += i * p.value_stride[k];
    line_at += i * p.line_stride[k];
  }
  const auto key = sort_key(values[value_at]);
  const T* line = sorted + line_at;
  index_t lo = 0, hi = p.n;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    const auto k = sort_key(line[mid]);
    if (p.right ? !(key < k) : k < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <class S, class V, class A, class Ctx>
auto searchsorted_into_temporary(const SearchSorted<S, V, A>& node, Ctx& ctx) {
  using T = promote_t<typename S::value_type, typename V::value_type>;
  using R = typename SearchSorted<S, V, A>::axes_type;
  using VA = typename V::axes_type;
  using Lines = intersection_t<R, difference_t<typename S::axes_type, axes<A>>>;  // in the result's order
  using SL = concat_t<Lines, axes<A>>;
  auto sorted = make_temporary(temporary_of<T, SL>{}, extents_by_name<SL>(node.a), ctx);
  assign_in_context(sorted.first, make_map<fn::cast_to<T>>(node.a), ctx);
  auto values = make_temporary(temporary_of<T, VA>{}, node.b.extents(), ctx);
  assign_in_context(values.first, make_map<fn::cast_to<T>>(node.b), ctx);
  auto out = make_temporary(temporary_of<index_t, R>{}, node.extents(), ctx);
  search_plan<R::size> plan;
  plan.extents = node.extents();
  plan.n = extent_of<A>(node.a);
  plan.right = node.right;
  const auto sorted_strides = row_major_strides(sorted.first.extents());
  const auto value_strides = row_major_strides(values.first.extents());
  [&]<class... Rs>(axes<Rs...>) {
    std::size_t k = 0;
    auto one = [&]<class X>(X*) {
      if constexpr (contains_v<X, VA>) plan.value_stride[k] = value_strides[index_of_v<X, VA>];
      if constexpr (contains_v<X, SL>) plan.line_stride[k] = sorted_strides[index_of_v<X, SL>];
      ++k;
    };
    (one(static_cast<Rs*>(nullptr)), ...);
  }(R{});
  index_t count = 1;
  for (index_t e : plan.extents) count *= e;
  run_searchsorted(out.first.data(), sorted.first.data(), values.first.data(), plan, count, ctx);
  return out.second;
}

}  // namespace nax::detail

namespace nax::detail::host {

// Sorts keys (and, with a payload, (key, payload) pairs) stably: LSD radix by digits of Width
// bits, one counting pass for every digit, skipping a digit all keys share. The result ends in
// keys / payload (tmp_*: scratch of the same length; payload may be null, and then tmp_payload
// too); count: scratch of digits << Width entries, reused from line to line.
template <int Width, class K, class P>
void radix_sort_digits(K* keys, P* payload, K* tmp_keys, P* tmp_payload, index_t n, std::vector<index_t>& count) {
  constexpr int digits = (8 * int(sizeof(K)) + Width - 1) / Width;
  constexpr K mask = K((1u << Width) - 1);
  count.assign(static_cast<std::size_t>(digits) << Width, 0);
  for (index_t i = 0; i < n; ++i)
    for (int d = 0; d < digits; ++d) ++count[(static_cast<std::size_t>(d) << Width) + ((keys[i] >> (Width * d)) & mask)];
  K *from_k = keys, *to_k = tmp_keys;
  P *from_p = payload, *to_p = tmp_payload;
  for (int d = 0; d < digits; ++d) {
    index_t* c = count.data() + (static_cast<std::size_t>(d) << Width);
    if (c[(from_k[0] >> (Width * d)) & mask] == n) continue;  // every key has this digit
    index_t sum = 0;
    for (std::size_t b = 0; b < (std::size_t{1} << Width); ++b) {
      const index_t here = c[b];
      c[b] = sum;
      sum += here;
    }
    for (index_t i = 0; i < n; ++i) {
      const index_t at = c[(from_k[i] >> (Width * d)) & mask]++;
      to_k[at] = from_k[i];
      if (payload) to_p[at] = from_p[i];
    }
    std::swap(from_k, to_k);
    std::swap(from_p, to_p);
  }
  if (from_k != keys) {
    std::copy(from_k, from_k + n, keys);
    if (payload) std::copy(from_p, from_p + n, payload);
  }
}

// Digits of 11 bits for long lines of wide keys (3 passes for 32 bits); of 8 otherwise, whose
// counts (256 per digit) cost less to clear and sum than a short line's passes save.
template <class K, class P>
void radix_sort(K* keys, P* payload, K* tmp_keys, P* tmp_payload, index_t n, std::vector<index_t>& count) {
  if (sizeof(K) > 2 && n >= (index_t{1} << 16)) radix_sort_digits<11>(keys, payload, tmp_keys, tmp_payload, n, count);
  else radix_sort_digits<8>(keys, payload, tmp_keys, tmp_payload, n, count);
}

// The value whose sort_key is k (canonical keys give 0.0 for zeros and a positive NaN).
template <class T>
T from_sort_key(sort_key_t<T> k) {
  using K = sort_key_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return k != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    constexpr K sign = K(1) << (8 * sizeof(K) - 1);
    const K bits = (k & sign) ? K(k ^ sign) : K(~k);
    T x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(static_cast<K>(k ^ (K(1) << (8 * sizeof(K) - 1))));
  } else {
    return static_cast<T>(k);
  }
}

inline constexpr index_t radix_sort_threshold = 256;  // shorter lines: std::stable_sort

// Sorts every line of data ([outer, n, inner]) along n. positions null: the values are sorted
// in place (descending: the ascending order reversed). Otherwise data is left as it is and
// positions receives the stable argsort (descending: largest first, equal elements in their
// order, as the ascending argsort of the reversed line, reversed); with leading >= 0, only the
// first `leading` positions of each line need be written (the rest may be left as they are).
template <class T>
void run_sort(T* data, index_t* positions, index_t outer, index_t n, index_t inner, bool descending, bool total_order,
              index_t leading, context&) {
  using K = sort_key_t<T>;
  if (outer == 0 || inner == 0 || n <= 0) return;
  const index_t lines = outer * inner;
  const bool values = positions == nullptr;
  for_each_chunk(lines * n >= parallel_threshold && lines > 1, lines, [&](index_t l0, index_t l1, int) {
    // scratch per thread (unique_ptr, not vector: vector<bool> has no data())
    const std::size_t len = static_cast<std::size_t>(n);
    auto keys = std::make_unique_for_overwrite<K[]>(len), tmp_keys = std::make_unique_for_overwrite<K[]>(len);
    auto order = std::make_unique_for_overwrite<std::uint32_t[]>(len);
    auto tmp_order = std::make_unique_for_overwrite<std::uint32_t[]>(len);
    auto vals = std::make_unique_for_overwrite<T[]>(values ? len : 0);
    auto tmp_vals = std::make_unique_for_overwrite<T[]>(values ? len : 0);
    std::vector<index_t> wide;   // positions of a line too long for uint32, or to select from
    std::vector<index_t> count;  // the radix sort's counts
    for (index_t line = l0; line < l1; ++line) {
      const index_t base = (line / inner) * n * inner + line % inner;
      if (!values && leading >= 0 && leading <= n / 8) {
        // only the first `leading` positions are read (top_k): select them by partial_sort,
        // with the position breaking ties (the stable order); the rest are not written
        wide.resize(static_cast<std::size_t>(n));
        for (index_t r = 0; r < n; ++r) wide[static_cast<std::size_t>(r)] = r;
        auto before = [&](index_t i, index_t j) {
          const auto ki = sort_key(data[base + i * inner], !total_order), kj = sort_key(data[base + j * inner], !total_order);
          return (descending ? kj < ki : ki < kj) || (ki == kj && i < j);
        };
        std::partial_sort(wide.begin(), wide.begin() + leading, wide.end(), before);
        for (index_t r = 0; r < leading; ++r) positions[base + r * inner] = wide[static_cast<std::size_t>(r)];
        continue;
      }
      // read order: element r of the line is data[at(r)] (reversed for a descending argsort)
      const bool reversed = !values && descending;
      auto at = [&](index_t r) { return base + (reversed ? n - 1 - r : r) * inner; };
      for (index_t r = 0; r < n; ++r) keys[r] = sort_key(data[at(r)], !total_order);
      auto by_key = [&](auto i, auto j) { return keys[i] < keys[j]; };
      if (values) {
        if (n < radix_sort_threshold) {
          for (index_t r = 0; r < n; ++r) vals[r] = data[at(r)];
          for (index_t r = 0; r < n; ++r) order[r] = static_cast<std::uint32_t>(r);
          std::stable_sort(order.get(), order.get() + n, by_key);
          for (index_t r = 0; r < n; ++r) tmp_vals[r] = vals[order[r]];
          std::swap(vals, tmp_vals);
        } else {
          // keys alone, turned back into values; the keys of -0.0 and of NaNs are canonical, so
          // the run of zeros and the run of NaNs (ascending: after the negatives, at the end)
          // are rewritten with the line's own zeros and NaNs, in their order (stable)
          radix_sort(keys.get(), static_cast<std::uint8_t*>(nullptr), tmp_keys.get(), static_cast<std::uint8_t*>(nullptr), n,
                     count);
          for (index_t r = 0; r < n; ++r) vals[r] = from_sort_key<T>(keys[r]);
          if constexpr (std::is_floating_point_v<T>) {
            if (!total_order) {
              index_t below_zero = 0, nans = 0;
              for (index_t r = 0; r < n; ++r) {
                const T v = data[at(r)];
                below_zero += v < T(0);
                nans += v != v;
              }
              index_t zero_at = below_zero, nan_at = n - nans;
              for (index_t r = 0; r < n; ++r) {
                const T v = data[at(r)];
                if (v == T(0)) vals[zero_at++] = v;
                else if (v != v) vals[nan_at++] = v;
              }
            }
          }
        }
        for (index_t r = 0; r < n; ++r) data[base + (descending ? n - 1 - r : r) * inner] = vals[r];
        continue;
      }
      auto write = [&](auto&& sorted_position) {  // positions in the line's own order
        for (index_t r = 0; r < n; ++r) {
          const index_t j = reversed ? n - 1 - r : r;  // reversed: the output is reversed as well
          const index_t p = static_cast<index_t>(sorted_position(j));
          positions[base + r * inner] = reversed ? n - 1 - p : p;
        }
      };
      if (n > static_cast<index_t>(std::numeric_limits<std::uint32_t>::max())) {
        wide.resize(static_cast<std::size_t>(n));
        for (index_t r = 0; r < n; ++r) wide[static_cast<std::size_t>(r)] = r;
        std::stable_sort(wide.begin(), wide.end(), by_key);
        write([&](index_t j) { return wide[static_cast<std::size_t>(j)]; });
        continue;
      }
      for (index_t r = 0; r < n; ++r) order[r] = static_cast<std::uint32_t>(r);
      if (n < radix_sort_threshold) std::stable_sort(order.get(), order.get() + n, by_key);
      else radix_sort(keys.get(), order.get(), tmp_keys.get(), tmp_order.get(), n, count);
      write([&](index_t j) { return order[j]; });
    }
  });
}

template <class T, std::size_t N>
void run_searchsorted(index_t* out, const T* sorted, const T* values, const search_plan<N>& plan, index_t count,
                      context&) {
  if (count == 0) return;
  for_each_chunk(count >= parallel_threshold / 8, count, [&](index_t i0, index_t i1, int) {
    for (index_t i = i0; i < i1; ++i) out[i] = search_position(sorted, values, plan, i);
  });
}

template <class C, class A, sort_result R>
auto materialise_node(const Sort<C, A, R>& node, context& ctx) {
  return sort_into_temporary(node, ctx);
}

template <class S, class V, class A>
auto materialise_node(const SearchSorted<S, V, A>& node, context& ctx) {
  return searchsorted_into_temporary(node, ctx);
}

}  // namespace nax::detail::host
