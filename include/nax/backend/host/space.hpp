// Where a program runs: the memory space of the arrays it reads. A space says which
// evaluation context a program's passes share, what array type holds a result (zero-filled
// when made from extents), how an expression is written into memory of that space, how a
// rank-0 output becomes the value the user gets, and how a communicator combines a result
// held there. host_space is this file's; the CUDA backend adds its own (backend/cuda/space.hpp)
// and claims, through space_of, every program that reads device arrays. Autodiff (grad's
// forward and backward passes) and xmap (each device's program) name no backend: they ask
// the space.
#pragma once
#include <concepts>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "assign.hpp"

namespace nax::detail {

struct host_space {
  using context = host::context;
  static context make_context() { return {}; }

  // xmap's hooks (each device's program evaluated by a thread of the mesh): nothing to do on
  // the host, whose threads write their shards of the results in parallel.
  static constexpr bool parallel_shard_writes = true;
  static int home() { return 0; }  // the caller's device
  struct mesh_scope {              // what a mesh thread holds while it runs the program
    mesh_scope(int /*home*/, bool /*the mesh made its device current*/) {}
  };
  static void before_mesh() {}
  static context make_mesh_context() { return {}; }
  static void finish(context&) {}
  // The context that writes a shard into the results `a` (on the device holding them).
  template <class A>
  static context context_for(const A&) {
    return {};
  }
  template <class T, class Axes>
  using array = array_for_t<T, Axes>;

  // An array whose every element will be written before it is read.
  template <class T, class Axes, std::size_t N>
  static auto uninitialised(const std::array<index_t, N>& extents) {
    return std::make_shared<array<T, Axes>>(no_fill, extents);
  }

  template <class T, class... As, class E>
  static void assign(const ArrayView<T, As...>& out, const E& e, context& ctx) {
    host::assign_in_context(out, e, ctx);
  }
  // A writable view of an array of this space, in nax's host view type (the pointer may be
  // device memory: the backend's assign knows).
  template <class T, class... As>
  static ArrayView<T, As...> writable(Array<T, As...>& a) {
    return a.view();
  }
  // A leaf of this space reading a view that writable gave (to read a result back while adding into it).
  template <class T, class... As>
  static auto read(const ArrayView<T, As...>& v, context&) {
    return leaf_of(v);
  }
  // The output evaluated once (a leaf of this space; reductions and contractions memoised).
  template <class E>
  static auto materialise(const E& e, context& ctx) {
    return host::materialise_any(e, ctx);
  }
  // A rank-0 result as an array the user owns.
  template <class T, class L>
  static Array<T> scalar(const L& leaf) {
    Array<T> v(std::array<index_t, 0>{});
    v.data()[0] = leaf.view.data()[0];
    return v;
  }
  // Sums an array over the communicator's members, in place on every member.
  template <class Communicator, class T, class... As>
  static void sum_over_members(Communicator& comm, Array<T, As...>& a) {
    comm.all_reduce(a.data(), a.size());
  }
  // Combines a result that each member wrote a part of (zeros elsewhere) into the whole, on
  // every member (in place): a sum of bytes, exact for every type (bool and 16-bit integers
  // too, which NCCL cannot add; -0.0 and NaN payloads kept).
  template <class Communicator, class T, class... As>
  static void combine_disjoint(Communicator& comm, Array<T, As...>& a) {
    comm.all_reduce(reinterpret_cast<std::uint8_t*>(a.data()), a.size() * index_t{sizeof(T)});
  }
};

// The memory-space protocol, host_space's members above: what grad's tape, xmap and
// GlobalArray call to run a program in a space and to move its results. A backend's space
// (nax::cuda::detail::device_space) provides the same; one that lacks a member fails where
// space_of_t names it, with this concept's name. The communicator members are checked for
// their signatures only (communicator_archetype stands for mesh/communicator.hpp's class,
// a layer above).
struct communicator_archetype {};
template <class S>
concept memory_space =
    std::constructible_from<typename S::mesh_scope, int, bool> &&
    requires(typename S::context& ctx, typename S::template array<float, axes<>>& a, const ArrayView<float>& out,
             communicator_archetype& comm) {
      { S::make_context() } -> std::same_as<typename S::context>;
      { S::make_mesh_context() } -> std::same_as<typename S::context>;
      { S::context_for(a) } -> std::same_as<typename S::context>;
      { S::home() } -> std::same_as<int>;
      { S::parallel_shard_writes } -> std::convertible_to<bool>;
      S::before_mesh();
      S::finish(ctx);
      { S::writable(a) } -> std::same_as<ArrayView<float>>;
      S::assign(out, S::read(out, ctx), ctx);
      S::sum_over_members(comm, a);
      S::combine_disjoint(comm, a);
    };

template <memory_space S>
using checked_space_t = S;

// The space of an expression: the host unless a backend claims it (the CUDA backend
// specialises this for expressions that read device arrays).
template <class E, class = void>
struct space_of {
  using type = host_space;
};
template <class E>
using space_of_t = checked_space_t<typename space_of<std::remove_cvref_t<E>>::type>;

// The space of a program with several outputs: the first that is not the host's, else the
// host's (an output of another space then fails to compile with the mixing message).
template <class... Es>
struct common_space {
  using type = host_space;
};
template <class E, class... Es>
struct common_space<E, Es...> {
  using type = std::conditional_t<std::is_same_v<space_of_t<E>, host_space>, typename common_space<Es...>::type,
                                  space_of_t<E>>;
};

}  // namespace nax::detail
