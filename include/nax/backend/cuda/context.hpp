// The device evaluation context: the memo of nodes computed in this evaluation (a reduction
// or contraction reused by user code is computed once), the device and its stream, and the
// dispatch from a node to the CUDA function that materialises it (materialise_node(node,
// context&) overloads in this namespace, found by ADL). Device leaves are read in place.
#pragma once
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"

namespace nax::cuda::detail {

// Which nodes the CUDA backend cannot compute yet: a compile-time error naming the node.
template <class Node>
struct require_cuda_support {
  static_assert(sizeof(Node) == 0,
                "nax: this operation is not implemented on the CUDA backend yet (ppermute, collectives "
                "and functions of a C++ random Key are host-only for now); "
                "copy the operands with nax::cuda::to_host and evaluate it on the host");
  static constexpr bool value = false;
};

// Does an expression tree read host memory? Walks the nodes that lowering walks and the
// producers of reductions and contractions.
template <class E>
struct reads_host : std::false_type {};
template <class T, class... As>
struct reads_host<nax::detail::Leaf<T, As...>> : std::true_type {};
template <class F, class... Cs>
struct reads_host<nax::detail::Map<F, Cs...>> : std::bool_constant<(reads_host<Cs>::value || ...)> {};
template <class C, class K, class O, class H, class U>
struct reads_host<nax::detail::Relayout<C, K, O, H, U>> : reads_host<C> {};
template <class F, class S, class... Gs>
struct reads_host<nax::detail::Generate<F, S, Gs...>> : reads_host<S> {};
template <class Op, class C, class... R>
struct reads_host<nax::detail::Reduce<Op, C, R...>> : reads_host<C> {};
template <class Op, class C, class A>
struct reads_host<nax::detail::ArgReduce<Op, C, A>> : reads_host<C> {};
template <class A, class B, class... K>
struct reads_host<nax::detail::Contract<A, B, K...>> : std::bool_constant<reads_host<A>::value || reads_host<B>::value> {};
template <class Axis, bool IsStack, class... Cs>
struct reads_host<nax::detail::Join<Axis, IsStack, Cs...>> : std::bool_constant<(reads_host<Cs>::value || ...)> {};
template <class C, class Outer, class Inner, class Merged>
struct reads_host<nax::detail::Merge<C, Outer, Inner, Merged>> : reads_host<C> {};

// Does an expression tree read device memory?
template <class E>
struct reads_device : std::false_type {};
template <class T, class... As>
struct reads_device<DeviceLeaf<T, As...>> : std::true_type {};
template <class F, class... Cs>
struct reads_device<nax::detail::Map<F, Cs...>> : std::bool_constant<(reads_device<Cs>::value || ...)> {};
template <class C, class K, class O, class H, class U>
struct reads_device<nax::detail::Relayout<C, K, O, H, U>> : reads_device<C> {};
template <class F, class S, class... Gs>
struct reads_device<nax::detail::Generate<F, S, Gs...>> : reads_device<S> {};
template <class Op, class C, class... R>
struct reads_device<nax::detail::Reduce<Op, C, R...>> : reads_device<C> {};
template <class Op, class C, class A>
struct reads_device<nax::detail::ArgReduce<Op, C, A>> : reads_device<C> {};
template <class A, class B, class... K>
struct reads_device<nax::detail::Contract<A, B, K...>>
    : std::bool_constant<reads_device<A>::value || reads_device<B>::value> {};
template <class Axis, bool IsStack, class... Cs>
struct reads_device<nax::detail::Join<Axis, IsStack, Cs...>> : std::bool_constant<(reads_device<Cs>::value || ...)> {};
template <class C, class Outer, class Inner, class Merged>
struct reads_device<nax::detail::Merge<C, Outer, Inner, Merged>> : reads_device<C> {};

struct context {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::vector<std::pair<std::uint64_t, std::shared_ptr<const void>>> memo;

  explicit context(int device_) : device(device_), stream(nax::cuda::stream(device_)) {}

  template <class Node>
  auto materialise(const Node& node) {
    if constexpr (is_device_leaf_v<Node>) {
      return node.as_leaf();
    } else {
      using L = nax::detail::leaf_for_t<Node>;
      if constexpr (requires(const Node& n, context& c) { materialise_node(n, c); }) {
        for (const auto& [id, stored] : memo)
          if (id == node.id) return *static_cast<const L*>(stored.get());
        L leaf = materialise_node(node, *this);
        memo.emplace_back(node.id, std::make_shared<const L>(leaf));
        return leaf;
      } else {
        static_assert(require_cuda_support<Node>::value);
        return L{};
      }
    }
  }
};

// A temporary device array for an intermediate result, kept alive by the leaf reading it.
template <class T, class L>
struct device_array_for;
template <class T, class... As>
struct device_array_for<T, axes<As...>> {
  using type = nax::cuda::Array<T, As...>;
};
template <class T, class L>
using device_array_for_t = typename device_array_for<T, L>::type;

}  // namespace nax::cuda::detail
