// The device evaluation context: the memo of nodes computed in this evaluation (a reduction
// or contraction reused by user code is computed once), the device and its stream, and the
// dispatch from a node to the CUDA function that materialises it (materialise_node(node,
// context&) overloads in this namespace, found by ADL). Device leaves are read in place when
// they are on the context's device; a leaf on another GPU (an xmap argument, a shard written
// into a result on another device) is copied here once per evaluation, as jax.pmap moves its
// inputs to the devices that read them.
#pragma once
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../expr/collective.hpp"
#include "../../expr/contract.hpp"
#include "../../expr/generate.hpp"
#include "../../expr/index.hpp"
#include "../../expr/join.hpp"
#include "../../expr/reduce.hpp"
#include "../../expr/relayout.hpp"
#include "../../expr/scan.hpp"
#include "../../expr/sort.hpp"
#include "../../expr/types_for.hpp"
#include "array.hpp"

namespace nax::cuda::detail {

// A node the CUDA backend cannot compute (every node of nax has a device implementation; a
// node added outside nax may have only a host one): a compile-time error naming the node.
template <class Node>
struct require_cuda_support {
  static_assert(sizeof(Node) == 0,
                "nax: this operation is not implemented on the CUDA backend (Node has no "
                "materialise_node(node, nax::cuda::detail::context&) overload); "
                "copy the operands with nax::cuda::to_host and evaluate it on the host");
  static constexpr bool value = false;
};

// Does expression tree E read a leaf that IsLeaf selects? Walks the nodes that lowering walks
// and the producers of reductions, contractions, joins and collectives.
template <template <class> class IsLeaf, class E>
struct reads_leaf : IsLeaf<E> {};
template <template <class> class IsLeaf, class F, class... Cs>
struct reads_leaf<IsLeaf, nax::detail::Map<F, Cs...>> : std::bool_constant<(reads_leaf<IsLeaf, Cs>::value || ...)> {};
template <template <class> class IsLeaf, class C, class K, class O, class H, class U>
struct reads_leaf<IsLeaf, nax::detail::Relayout<C, K, O, H, U>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class F, class S, class... Gs>
struct reads_leaf<IsLeaf, nax::detail::Generate<F, S, Gs...>> : reads_leaf<IsLeaf, S> {};
template <template <class> class IsLeaf, class Op, class C, class... R>
struct reads_leaf<IsLeaf, nax::detail::Reduce<Op, C, R...>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class Op, class C, class A>
struct reads_leaf<IsLeaf, nax::detail::ArgReduce<Op, C, A>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class A, class B, class... K>
struct reads_leaf<IsLeaf, nax::detail::Contract<A, B, K...>>
    : std::bool_constant<reads_leaf<IsLeaf, A>::value || reads_leaf<IsLeaf, B>::value> {};
template <template <class> class IsLeaf, class Axis, bool IsStack, class... Cs>
struct reads_leaf<IsLeaf, nax::detail::Join<Axis, IsStack, Cs...>>
    : std::bool_constant<(reads_leaf<IsLeaf, Cs>::value || ...)> {};
template <template <class> class IsLeaf, class C, class Outer, class Inner, class Merged>
struct reads_leaf<IsLeaf, nax::detail::Merge<C, Outer, Inner, Merged>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class C>
struct reads_leaf<IsLeaf, nax::detail::Stored<C>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class Op, class C, class A>
struct reads_leaf<IsLeaf, nax::detail::Scan<Op, C, A>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class C, class A, nax::detail::sort_result R>
struct reads_leaf<IsLeaf, nax::detail::Sort<C, A, R>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class S, class V, class A>
struct reads_leaf<IsLeaf, nax::detail::SearchSorted<S, V, A>>
    : std::bool_constant<reads_leaf<IsLeaf, S>::value || reads_leaf<IsLeaf, V>::value> {};
template <template <class> class IsLeaf, class X, class I, class A>
struct reads_leaf<IsLeaf, nax::detail::Take<X, I, A>>
    : std::bool_constant<reads_leaf<IsLeaf, X>::value || reads_leaf<IsLeaf, I>::value> {};
template <template <class> class IsLeaf, class Op, class X, class I, class U, class A>
struct reads_leaf<IsLeaf, nax::detail::Scatter<Op, X, I, U, A>>
    : std::bool_constant<reads_leaf<IsLeaf, X>::value || reads_leaf<IsLeaf, I>::value || reads_leaf<IsLeaf, U>::value> {};
template <template <class> class IsLeaf, class C, class Kind, class Axis>
struct reads_leaf<IsLeaf, nax::detail::CommCollective<C, Kind, Axis>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class C, class Axis>
struct reads_leaf<IsLeaf, nax::detail::Permute<C, Axis>> : reads_leaf<IsLeaf, C> {};
template <template <class> class IsLeaf, class C, class N, class Split, class Concat>
struct reads_leaf<IsLeaf, nax::detail::AllToAll<C, N, Split, Concat>> : reads_leaf<IsLeaf, C> {};

template <class L>
struct is_host_leaf : std::false_type {};
template <class T, class... As>
struct is_host_leaf<nax::detail::Leaf<T, As...>> : std::true_type {};
template <class L>
struct is_device_leaf : std::bool_constant<is_device_leaf_v<L>> {};

// Does an expression tree read host memory? Device memory?
template <class E>
struct reads_host : reads_leaf<is_host_leaf, E> {};
template <class E>
struct reads_device : reads_leaf<is_device_leaf, E> {};

struct context {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::vector<std::pair<std::uint64_t, std::shared_ptr<const void>>> memo;
  struct peer_copy {
    const void* source;
    int source_device;
    std::size_t bytes;
    std::shared_ptr<const void> storage;
  };
  std::vector<peer_copy> copies;

  // Set when every device leaf on another GPU this context reads is known to be complete and to
  // outlive the context's work (xmap synchronises first): peer copies then skip the events,
  // which would otherwise queue work on a stream another thread may have blocked in NCCL.
  bool sources_complete = false;

  explicit context(int device_, bool sources_complete_ = false)
      : device(device_), stream(nax::cuda::stream(device_)), sources_complete(sources_complete_) {}

  // A device leaf readable by kernels on this context's device: itself, or (once per
  // evaluation) a copy of the memory it spans, when it lives on another device.
  template <class T, class... As>
  DeviceLeaf<T, As...> here(const DeviceLeaf<T, As...>& leaf) {
    if (leaf.device == device || leaf.view.size() == 0) return leaf;
    index_t low = 0, high = 0;  // the span of elements the view reaches, relative to its pointer
    for (std::size_t k = 0; k != sizeof...(As); ++k) {
      const index_t reach = leaf.view.strides()[k] * (leaf.view.extents()[k] - 1);
      (reach < 0 ? low : high) += reach;
    }
    const void* start = leaf.view.data() + low;
    const std::size_t count = static_cast<std::size_t>(high - low + 1);
    for (const auto& copy : copies)
      if (copy.source == start && copy.source_device == leaf.device && copy.bytes == count * sizeof(T))
        return rebased(leaf, static_cast<const T*>(copy.storage.get()) - low, copy.storage);
    auto buffer = std::make_shared<device_buffer<T>>(count, device);
    copy_between_devices(buffer->data(), start, leaf.device, count * sizeof(T));
    std::shared_ptr<const void> storage(buffer, buffer->data());
    copies.push_back({start, leaf.device, count * sizeof(T), storage});
    return rebased(leaf, buffer->data() - low, storage);
  }

  template <class Node>
  auto materialise(const Node& node) {
    if constexpr (is_device_leaf_v<Node>) {
      return here(node).as_leaf();
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

 private:
  template <class T, class... As>
  DeviceLeaf<T, As...> rebased(const DeviceLeaf<T, As...>& leaf, const T* data, std::shared_ptr<const void> owner) {
    DeviceLeaf<T, As...> moved = leaf;
    moved.view = nax::ArrayView<const T, As...>(data, leaf.view.extents(), leaf.view.strides());
    moved.owner = std::move(owner);
    moved.device = device;
    return moved;
  }

  // bytes from `from` (on device `source`) to `to` (on this device), ordered after the work
  // queued on the source's stream, and before any later work there (a free of the source).
  void copy_between_devices(void* to, const void* from, int source, std::size_t bytes) {
    if (sources_complete) {
      device_guard guard(device);
      NAX_CUDA_CHECK(cudaMemcpyPeerAsync(to, device, from, source, bytes, stream));
      return;
    }
    copy_across_devices(to, device, from, source, bytes);
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
