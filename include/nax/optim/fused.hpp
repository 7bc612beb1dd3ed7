// One pass, several outputs: an optimizer's per-leaf update writes its new moments and its
// update (or the new parameter) in one loop over the leaf, reading each input once.
//
// nax's assignment writes one array per pass. Here the outputs' expressions are lowered with
// one loop order (the first output's axes) and wrapped in one evaluator, `multi_eval`, that the
// backend's ordinary elementwise loop runs (backend/host/loop.hpp's run_elementwise; on the
// device backend/cuda/elementwise.hpp's kernel, optim/fused_cuda.hpp): the loop writes the
// first output; multi_eval's get computes every output's value at the element first, then
// stores the others through strided output streams, then returns the first. So an output may
// be written in place of an input that is read at the same element (a moment updated into its
// own buffer, a parameter into its own), as nax's `x = x + 1` may. An input read at another
// element than the one written (a transposed alias) sends the pass through temporaries.
// Output streams fold with the loop (can_fold/fold, lower/evaluators.hpp) and promise unit
// stride only when they have it; on the device they store lanes when aligned.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../backend/host/space.hpp"
#include "tree.hpp"

namespace nax::optim::detail {
namespace nd = nax::detail;

// Where one extra output goes: element (row + i * stride[N-1]) of data, row set per loop row.
template <class T, std::size_t N>
struct output_stream {
  using value_type = T;
  T* data;
  std::array<index_t, N> stride;
  index_t row = 0;
  bool aligned = false;  // every row start aligned for lane stores (device)

  NAX_HOST_DEVICE void set_row(const index_t* idx) {
    row = 0;
    if constexpr (N > 0)
      for (std::size_t k = 0; k + 1 < N; ++k) row += idx[k] * stride[k];
  }
  template <bool Unit>
  NAX_HOST_DEVICE T* at(index_t i) const {
    if constexpr (N == 0) return data + row;
    else if constexpr (Unit) return data + row + i;
    else return data + row + i * stride[N - 1];
  }
  bool unit_inner() const {
    if constexpr (N > 0) return stride[N - 1] == 1;
    else return true;
  }
  bool can_fold(std::size_t k, index_t ek, index_t en) const { return nd::affine_can_fold(stride, true, k, ek, en); }
  void fold(std::size_t k, index_t ek, index_t en) { nd::affine_fold(stride, true, k, ek, en); }
};

// The evaluator of a pass with outputs 0 (the loop's own) and 1..K (streams).
template <class Main, class Sides, class Streams>
struct multi_eval;
template <class Main, class... Sides, class... Streams>
struct multi_eval<Main, std::tuple<Sides...>, std::tuple<Streams...>> {
  using value_type = typename Main::value_type;
  Main main;
  nd::pack<Sides...> sides;
  nd::pack<Streams...> streams;

  NAX_HOST_DEVICE void set_row(const index_t* idx) {
    main.set_row(idx);
    set_rows(idx, std::index_sequence_for<Sides...>{});
  }
  template <std::size_t... K>
  NAX_HOST_DEVICE void set_rows([[maybe_unused]] const index_t* idx, std::index_sequence<K...>) {
    ((nd::get<K>(sides).set_row(idx), nd::get<K>(streams).set_row(idx)), ...);
  }

  template <bool Unit>
  NAX_HOST_DEVICE value_type get(index_t i) const {
    const value_type v = main.template get<Unit>(i);
    store<Unit>(i, std::index_sequence_for<Sides...>{});
    return v;
  }
  // Every value of the element first, then the stores.
  template <bool Unit, std::size_t... K>
  NAX_HOST_DEVICE void store([[maybe_unused]] index_t i, std::index_sequence<K...>) const {
    [[maybe_unused]] const std::tuple<typename Streams::value_type...> values(
        static_cast<typename Streams::value_type>(nd::get<K>(sides).template get<Unit>(i))...);
    ((*nd::get<K>(streams).template at<Unit>(i) = std::get<K>(values)), ...);
  }

  template <int L>
  NAX_HOST_DEVICE nd::lanes<value_type, L> get_lanes(index_t i) const {
    const auto v = main.template get_lanes<L>(i);
    store_lanes<L>(i, std::index_sequence_for<Sides...>{});
    return v;
  }
  template <int L, std::size_t... K>
  NAX_HOST_DEVICE void store_lanes([[maybe_unused]] index_t i, std::index_sequence<K...>) const {
    [[maybe_unused]] const auto values = std::make_tuple(nd::get<K>(sides).template get_lanes<L>(i)...);
    (store_one_lanes<L>(nd::get<K>(streams), std::get<K>(values), i), ...);
  }
  template <int L, class Stream, class V>
  NAX_HOST_DEVICE static void store_one_lanes(const Stream& s, const nd::lanes<V, L>& values, index_t i) {
    using T = typename Stream::value_type;
    nd::lanes<T, L> converted;
    for (int j = 0; j < L; ++j) converted.v[j] = static_cast<T>(values.v[j]);
    T* p = s.template at<true>(i);
    if (s.aligned) {
      nd::store_lanes<L>(p, converted);
    } else {
      for (int j = 0; j < L; ++j) p[j] = converted.v[j];
    }
  }

  bool unit_inner() const {
    return main.unit_inner() &&
           sides.apply([](const auto&... s) { return (s.unit_inner() && ... && true); }) &&
           streams.apply([](const auto&... s) { return (s.unit_inner() && ... && true); });
  }
  bool can_fold(std::size_t k, index_t ek, index_t en) const {
    return main.can_fold(k, ek, en) &&
           sides.apply([&](const auto&... s) { return (s.can_fold(k, ek, en) && ... && true); }) &&
           streams.apply([&](const auto&... s) { return (s.can_fold(k, ek, en) && ... && true); });
  }
  void fold(std::size_t k, index_t ek, index_t en) {
    main.fold(k, ek, en);
    sides.apply([&](auto&... s) { (s.fold(k, ek, en), ...); });
    streams.apply([&](auto&... s) { (s.fold(k, ek, en), ...); });
  }
  template <class V>
  void visit_leaves(V&& v) const {
    main.visit_leaves(v);
    sides.apply([&v](const auto&... s) { (s.visit_leaves(v), ...); });
  }
  template <class V>
  void visit_leaves(V&& v) {
    main.visit_leaves(v);
    sides.apply([&v](auto&... s) { (s.visit_leaves(v), ...); });
  }
};

// Owning arrays (an output can be one, or be made like one). The CUDA backend's are added by
// fused_cuda.hpp.
template <class X>
struct owning_array : std::false_type {};
template <class T, class... As>
struct owning_array<Array<T, As...>> : std::true_type {
  using space = nd::host_space;
};
template <class X>
inline constexpr bool owning_array_v = owning_array<std::remove_cvref_t<X>>::value;

// How a space runs a multi-output pass (the host's here; the device's in fused_cuda.hpp).
template <class Space>
struct pass_runner;
template <>
struct pass_runner<nd::host_space> {
  template <class Ev, class T, std::size_t N>
  static void run(const Ev& ev, T* out, const std::array<index_t, N>& extents, const std::array<index_t, N>& strides,
                  nd::host::context&) {
    nd::host::run_elementwise(ev, out, extents, strides);
  }
  template <class T, std::size_t N>
  static bool lanes_aligned(const T*, const std::array<index_t, N>&) {
    return false;  // the host's loops never read lanes
  }
};

// An uninitialised owning array of type D.
template <class D, std::size_t N>
D allocate(const std::array<index_t, N>& extents) {
  using Space = typename owning_array<D>::space;
  return D(std::move(*Space::template uninitialised<typename D::value_type, typename D::axes_type>(extents)));
}

// Destination strides in the loop order L (by name).
template <class L, class DA, std::size_t N>
std::array<index_t, N> strides_in(const std::array<index_t, N>& own) {
  std::array<index_t, N> out{};
  [&]<class... Ls>(axes<Ls...>) {
    std::size_t k = 0;
    ((out[k++] = own[nd::index_of_v<Ls, DA>]), ...);
  }(L{});
  return out;
}

template <class D, class E>
void check_output(const D& dest, const E& e) {
  using DA = typename D::axes_type;
  static_assert(nd::require_same_axis_set<DA, typename E::axes_type>::value);
  static_assert(nd::require_no_narrowing<typename D::value_type, typename E::value_type>::value);
  if (nd::extents_by_name<DA>(e) != dest.extents())
    throw shape_error("nax: optim: an output of extents " + describe_leaf(dest) + " for an update of extents " +
                      describe_leaf(e));
}

// dests[k] = es[k] for every k, in one pass (see the top of this file). The destinations are
// owning arrays of one memory space; es are expressions (as_expr'd) with their axis sets.
template <class... Ds, class... Es>
void fused_assign(std::tuple<Ds&...> dests, const Es&... es) {
  static_assert(sizeof...(Ds) == sizeof...(Es) && sizeof...(Es) >= 1);
  using D0 = std::tuple_element_t<0, std::tuple<Ds...>>;
  using Space = typename owning_array<D0>::space;
  using L = typename D0::axes_type;
  constexpr std::size_t N = L::size;
  [&]<std::size_t... K>(std::index_sequence<K...>) { (check_output(std::get<K>(dests), es), ...); }(
      std::index_sequence_for<Es...>{});
  auto ctx = Space::make_context();
  auto lowered = std::make_tuple(
      nd::lower<nd::last_t<L>>(es, nd::identity_placement<typename Es::axes_type, L>(), ctx)...);
  auto& d0 = std::get<0>(dests);
  const std::array<index_t, N> extents = d0.extents();
  auto view0 = Space::writable(d0);
  // Streams for outputs 1..K, strides in the loop order.
  auto make_stream = [&](auto& dest) {
    using D = std::remove_cvref_t<decltype(dest)>;
    using T = typename D::value_type;
    auto view = Space::writable(dest);
    output_stream<T, N> s{view.data(), strides_in<L, typename D::axes_type>(view.strides())};
    s.aligned = pass_runner<Space>::lanes_aligned(view.data(), s.stride);
    return s;
  };
  auto ev = [&]<std::size_t... K>(std::index_sequence<0, K...>) {
    using Main = std::tuple_element_t<0, decltype(lowered)>;
    using Sides = std::tuple<std::tuple_element_t<K, decltype(lowered)>...>;
    using Streams = std::tuple<decltype(make_stream(std::get<K>(dests)))...>;
    return multi_eval<Main, Sides, Streams>{
        std::get<0>(lowered), {{std::get<K>(lowered)}...}, {{make_stream(std::get<K>(dests))}...}};
  }(std::index_sequence_for<Es...>{});

  // Each output against every input: the same element, or no shared memory.
  bool overlap = nd::host::reads_overlap_destination(ev, view0.data(), extents, view0.strides());
  ev.streams.apply([&](const auto&... s) {
    ((overlap = overlap || nd::host::reads_overlap_destination(ev, s.data, extents, s.stride)), ...);
  });
  if (!overlap) {
    pass_runner<Space>::run(ev, view0.data(), extents, view0.strides(), ctx);
    return;
  }
  // Rare (an output aliasing an input at other elements): every value into a temporary first.
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    auto temporaries = std::make_tuple(allocate<std::remove_cvref_t<Ds>>(std::get<K>(dests).extents())...);
    fused_assign(std::tie(std::get<K>(temporaries)...), es...);
    (Space::assign(Space::writable(std::get<K>(dests)), nd::as_expr(std::as_const(std::get<K>(temporaries))), ctx),
     ...);
  }(std::index_sequence_for<Es...>{});
}

// Whether an expression varies over a mapped axis or holds an unresolved collective (inside
// vmap/xmap): its value cannot be written into an owning array there.
template <class E>
inline constexpr bool mapped_v = nd::hidden_t<E>::size != 0 || nd::unbound_t<E>::size != 0;

// The destination of an output "like" source (an owning array gives its type, and its buffer
// when it is a non-const rvalue; anything else: an array of the expression's space with the
// source's axis order).
template <class Source, class E>
auto destination(Source&& source, const E& e) {
  using S = std::remove_cvref_t<Source>;
  if constexpr (owning_array_v<S>) {
    if constexpr (!std::is_lvalue_reference_v<Source> && !std::is_const_v<std::remove_reference_t<Source>>) {
      if (source.extents() == nd::extents_by_name<typename S::axes_type>(e)) return S(std::move(source));
    }
    return allocate<S>(nd::extents_by_name<typename S::axes_type>(e));
  } else {
    using A = axes_of<S>;
    using R = typename nd::space_of_t<E>::template array<typename E::value_type, A>;
    return allocate<R>(nd::extents_by_name<A>(e));
  }
}

// The outputs of one leaf: out[k] = exprs[k], made like sources[k]. Unmapped: owning arrays
// written in one fused pass. Inside vmap/xmap: nax::eval of each (evaluated mapped values,
// one pass each; the map writes the results).
template <class Sources, class Exprs>
auto emit(Sources&& sources, Exprs&& exprs) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    using Es = std::tuple<nd::expr_t<std::tuple_element_t<K, std::remove_cvref_t<Exprs>>>...>;
    if constexpr ((mapped_v<std::tuple_element_t<K, Es>> || ...)) {
      return std::make_tuple(nax::eval(std::get<K>(exprs))...);
    } else {
      const Es es(nd::as_expr(std::get<K>(exprs))...);
      auto dests = std::make_tuple(
          destination(std::get<K>(std::forward<Sources>(sources)), std::get<K>(es))...);
      fused_assign(std::tie(std::get<K>(dests)...), std::get<K>(es)...);
      return dests;
    }
  }(std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<Exprs>>>{});
}

}  // namespace nax::optim::detail
