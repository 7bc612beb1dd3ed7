// xmap<bind<logical, mesh_axis>..., bind<vectorised>...>(f, mesh): f mapped over every
// named logical axis. An axis bound to a mesh axis is split across that mesh axis's devices
// (its extent must divide evenly); an axis bound to nothing is vectorised on each device.
// Each device runs the same program, fixed at compile time, on its shards; collectives over
// a mesh-bound axis call that mesh axis's communicator, made with the mesh. The results are
// those of vmap over the same axes: the layout changes speed, never values. Each device's
// program runs in the memory space of the arrays it reads (lower/space_of.hpp): on the
// host, or, given nax::cuda arrays, on the GPU (results are then nax::cuda::Arrays on the
// device of the mesh's first position in this process).
// pmap<axis>(f, mesh) is the one-axis case over a one-axis mesh.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "../backend/host/assign.hpp"
#include "../core/view_slicing.hpp"
#include "../expr/leaves.hpp"
#include "../mesh/collective_host.hpp"
#include "../mesh/global_array.hpp"
#include "../mesh/mesh.hpp"
#include "../mesh/space_on_mesh.hpp"
#include "extent_agreement.hpp"
#include "vmap.hpp"

namespace nax {

// No mesh axis: the logical axis is vectorised on each device.
struct local_axis {};

// Binds logical axis Logical to mesh axis MeshAxis (or vectorises it: bind<Logical>).
template <class Logical, class MeshAxis = local_axis>
struct bind {
  using logical = Logical;
  using mesh_axis = MeshAxis;
};

namespace detail {

template <class B, class MeshAxes>
struct require_bound_to_mesh_axis {
  static_assert(std::is_same_v<typename B::mesh_axis, local_axis> || contains_v<typename B::mesh_axis, MeshAxes>,
                "nax: xmap binds a logical axis to a mesh axis the mesh does not have (B, MeshAxes)");
  static constexpr bool value = true;
};

// Several logical axes may share a mesh axis (heads and MLP units both over `model`), but
// one array cannot be split over a mesh axis by two of its axes: each device would hold
// only the diagonal blocks. Leaf is the array, MeshAxesUsed the mesh axes its axes bind to.
template <class Leaf, class MeshAxesUsed>
struct require_one_axis_per_mesh_axis {
  static_assert(is_unique_v<MeshAxesUsed>,
                "nax: xmap: an array (Leaf) has two axes bound to one mesh axis (MeshAxesUsed); an array can be "
                "split over a mesh axis by one of its axes only");
  static constexpr bool value = true;
};

// The mesh axes that the axes Axes of an array bind to (a mesh axis twice if two do).
template <class Axes, class... Bs>
using mesh_axes_used_t = tuple_to_axes_t<decltype(std::tuple_cat(
    std::conditional_t<std::is_same_v<typename Bs::mesh_axis, local_axis> || !contains_v<typename Bs::logical, Axes>,
                       std::tuple<>, std::tuple<typename Bs::mesh_axis>>{}...))>;

// How one logical axis sits on this device.
struct placed_axis {
  index_t global = -1;
  index_t local = -1;
  index_t offset = 0;
  communicator* comm = nullptr;
};

// step(step(step(x, T0), T1), ...), types passed as std::type_identity.
template <class X, class Step>
auto fold_steps(X x, Step&) {
  return x;
}
template <class X, class Step, class T, class... Ts>
auto fold_steps(X x, Step& step, T t, Ts... ts) {
  return fold_steps(step(std::move(x), t), step, ts...);
}

// The leaf as this device's f sees it: its part of every mesh-bound axis, mapped axes hidden.
template <class... Bs, class Leaf>
auto place_leaf(Leaf&& leaf, const std::array<placed_axis, sizeof...(Bs)>& placed) {
  if constexpr (element<std::remove_cvref_t<Leaf>>) {
    return as_expr(std::forward<Leaf>(leaf));
  } else {
    auto e = as_expr(std::forward<Leaf>(leaf));
    static_assert(require_one_axis_per_mesh_axis<std::remove_cvref_t<Leaf>,
                                                 mesh_axes_used_t<visible_t<decltype(e)>, Bs...>>::value);
    // A strided leaf (an array of either memory space) is narrowed in its view, so what a
    // device reads is only its part (an argument on another GPU is copied part by part).
    using E = decltype(e);
    constexpr bool narrow_view = has_strided_view<E>;
    if constexpr (narrow_view) {
      std::size_t j = 0;
      auto to_own_part = [&]<class B>(std::type_identity<B>) {
        const placed_axis& p = placed[j++];
        if constexpr (!std::is_same_v<typename B::mesh_axis, local_axis> &&
                      contains_v<typename B::logical, typename E::axes_type>)
          e.view = narrow<typename B::logical>(e.view, p.offset, p.local);
      };
      (to_own_part(std::type_identity<Bs>{}), ...);
    }
    std::size_t k = 0;
    auto step = [&]<class B>(auto current, std::type_identity<B>) {
      using L = typename B::logical;
      const placed_axis& p = placed[k++];
      if constexpr (contains_v<L, visible_t<decltype(current)>>) {
        if constexpr (!std::is_same_v<typename B::mesh_axis, local_axis>)
          return hide_axis<L>(narrow_axis<L>(std::move(current), narrow_view ? 0 : p.offset, p.local));
        else
          return hide_axis<L>(std::move(current));
      } else {
        return current;
      }
    };
    return fold_steps(std::move(e), step, std::type_identity<Bs>{}...);
  }
}

// An output leaf of this device's f: every logical axis resolved; those it varies over
// become visible (first, in binding order); the others mean the output is replicated.
template <class... Bs, class Leaf>
auto finish_xmap_leaf(Leaf&& leaf) {
  auto e = as_expr(std::forward<Leaf>(leaf));
  static_assert(require_one_axis_per_mesh_axis<std::remove_cvref_t<Leaf>, mesh_axes_used_t<hidden_t<decltype(e)>, Bs...>>::value);
  auto step = [&]<class B>(auto current, std::type_identity<B>) {
    using L = typename B::logical;
    auto r = resolve_axis<L>(std::move(current));
    if constexpr (contains_v<L, hidden_t<decltype(r)>>) return reveal_axis<L, 0>(std::move(r));
    else return r;
  };
  // Reveal in reverse binding order so that the first binding ends up first.
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return fold_steps(std::move(e), step,
                      std::type_identity<std::tuple_element_t<sizeof...(Bs) - 1 - I, std::tuple<Bs...>>>{}...);
  }(std::index_sequence_for<Bs...>{});
}

template <class B>
constexpr bool is_mesh_bound_v = !std::is_same_v<typename B::mesh_axis, local_axis>;

// Arguments xmap maps: pytrees of arrays, or GlobalArrays (read shard by shard).
template <class L, class Arg>
constexpr bool xmap_argument_has() {
  using D = std::remove_cvref_t<Arg>;
  if constexpr (is_global_array_v<D>) return contains_v<L, typename D::axes_type>;
  else return argument_mapped<L, mapped_t, Arg>();
}
template <class L, class... Args>
constexpr bool any_argument_has() {
  return (xmap_argument_has<L, Args>() || ...);
}

// The position of the binding of logical axis A among Bs, or npos.
template <class A, class... Bs>
inline constexpr std::size_t binding_index_v = index_of_pack<A, typename Bs::logical...>();

// The memory space of a device's program: that of its output leaves.
template <class Outputs>
struct program_space {
  using type = typename decltype([]<class... Ls>(std::type_identity<std::tuple<Ls...>>) {
    return std::type_identity<typename common_space<Ls...>::type>{};
  }(std::type_identity<leaf_types_t<const Outputs&>>{}))::type;
};

template <class L, bool Mapped>
struct require_logical_axis_in_arguments {
  static_assert(Mapped, "nax: xmap binds logical axis L but no argument has an axis of that name");
  static constexpr bool value = true;
};

template <class Mesh, class F, class... Bs>
struct xmapped {
  F f;
  Mesh mesh;

  static constexpr std::size_t nb = sizeof...(Bs);
  using binding_list = std::tuple<Bs...>;
  template <std::size_t I>
  using binding = std::tuple_element_t<I, binding_list>;

  // Inside grad (autodiff/tape.hpp): the devices' programs run on the mesh's threads, which
  // the tape does not see, so an argument that depends on a differentiated argument would
  // reach the results as a constant. grad belongs inside the mapped function, as in the JAX programs nax reproduces.
  template <class Arg>
  static void refuse_recorded_argument(const Arg& arg) {
    if constexpr (pytree<Arg>) {
      auto look = [](const auto& leaf) {
        if constexpr (array_like<decltype(leaf)>) {
          if (depends_on_tape(as_expr(leaf), *active_tape))
            throw argument_error(
                "nax: grad: f calls xmap (or pmap) with an argument that depends on a differentiated argument; "
                "the mesh's devices are not recorded, so its derivative would be lost. Call grad inside the "
                "mapped function instead (xmap of a function that calls value_and_grad)");
        }
      };
      tree_visit_leaves(look, arg);
    }
  }

  // The mapped call, in named steps: check the arguments against the bindings, agree on each
  // logical axis's extent, then on every device of the mesh: place the arguments, bind the
  // axes, evaluate f's outputs, and deliver them into the whole results.
  template <class... Args>
  auto operator()(Args&&... args) const {
    static_assert(bindings_name_argument_axes<Args...>());
    const std::array<placed_axis, nb> global = agree_on_extents(args...);
    (check_global_array_sharding(args), ...);
    if (active_tape) [[unlikely]] (refuse_recorded_argument(args), ...);
    using Outputs = decltype(run_on_device(global, 0, args...));
    using Space = typename program_space<Outputs>::type;
    using Local = decltype(evaluate_on_device<Space>(std::declval<const Outputs&>(), std::declval<typename Space::context&>()));
    using OnMesh = checked_space_on_mesh_t<Space>;
    delivery<Space, Local> results;
    OnMesh::before_mesh();
    const int home = OnMesh::home();
    const bool mesh_sets_device = mesh.devices().kind() == device_kind::cuda;
    mesh.run([&](auto& here) {
      typename OnMesh::mesh_scope scope(home, mesh_sets_device);
      const std::array<placed_axis, nb> placed = place_on(here, global);
      bound_axes bound(placed);
      // Every device evaluates every output (the same collectives in the same order), in one
      // context so that shared work is done once; one device per shard writes the result.
      auto ctx = OnMesh::make_mesh_context();
      auto local = evaluate_on_device<Space>(run_on_device(placed, here.position(), args...), ctx);
      OnMesh::finish(ctx);  // this device's outputs are complete
      deliver(results, local, placed, here, ctx);
    });
    return std::move(*results.whole);
  }

 private:
  // Every binding's logical axis is an axis of some argument (else a compile error naming it).
  template <class... Args>
  static constexpr bool bindings_name_argument_axes() {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (require_logical_axis_in_arguments<typename binding<I>::logical,
                                                any_argument_has<typename binding<I>::logical, Args...>()>::value &&
              ... && true);
    }(std::make_index_sequence<nb>{});
  }

  // Each logical axis's global extent, as the arguments agree on it, and its part per device.
  template <class... Args>
  std::array<placed_axis, nb> agree_on_extents(const Args&... args) const {
    std::array<placed_axis, nb> global{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((global[I].global = agreed_extent<binding<I>>(args...)), ...);
      (check_divides<binding<I>>(global[I]), ...);
    }(std::make_index_sequence<nb>{});
    return global;
  }

  // The axes as this device holds them: its offset along each mesh-bound axis, and the mesh
  // axis's communicator.
  template <class Device>
  static std::array<placed_axis, nb> place_on(Device& here, std::array<placed_axis, nb> placed) {
    [&]<std::size_t... I>(std::index_sequence<I...>) { (place<binding<I>>(placed[I], here), ...); }(
        std::make_index_sequence<nb>{});
    return placed;
  }

  // The logical axes bound in this thread's axis environment while the device's program runs.
  struct bound_axes {
    std::array<std::optional<axis_scope>, nb> scopes;
    explicit bound_axes(const std::array<placed_axis, nb>& placed) {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        (scopes[I].emplace(axis_binding{axis_key<typename binding<I>::logical>(), placed[I].local, placed[I].global,
                                        placed[I].offset, placed[I].comm}),
         ...);
      }(std::make_index_sequence<nb>{});
    }
  };

  // The whole results as the devices of this process build them together.
  template <class Space, class Local>
  struct delivery {
    std::optional<Local> whole;                       // allocated by this process's first device
    std::mutex lock;
    std::vector<std::function<void()>> shard_writes;  // spaces whose shards one thread writes
  };

  // This device's outputs into the whole results: the first device of this process allocates
  // them (on its GPU, for device outputs); after a barrier each shard is written by one device
  // (or, in a space whose writes must come from one thread, by the first device for all);
  // devices of other processes' shards are then combined in; a last barrier keeps every
  // device's `local` alive until its shards are written.
  template <class Space, class Local, class Device>
  void deliver(delivery<Space, Local>& results, const Local& local, const std::array<placed_axis, nb>& placed,
               Device& here, typename Space::context& ctx) const {
    const bool first = here.position() == mesh.local_devices().front();
    {
      std::lock_guard hold(results.lock);
      if (first) results.whole.emplace(allocate_global(local));
      if constexpr (!space_on_mesh<Space>::parallel_shard_writes)
        results.shard_writes.push_back([&] { write_shards<Space>(*results.whole, local, placed, here); });
    }
    auto& everyone = all_devices_comm(here);
    everyone.barrier();
    { std::lock_guard hold(results.lock); }  // the allocation is visible to this thread
    if constexpr (space_on_mesh<Space>::parallel_shard_writes) {
      write_shards<Space>(*results.whole, local, placed, here);
    } else if (first) {
      for (auto& write : results.shard_writes) write();
      space_on_mesh<Space>::finish(ctx);  // the results are on this thread's device
    }
    if (mesh.local_devices().size() != static_cast<std::size_t>(mesh.device_count()))
      combine_across_processes<Space>(*results.whole, everyone);
    everyone.barrier();
  }

  // Devices of other processes wrote their shards into their own copies: sum them (every
  // element is written by exactly one device, the rest are zeros).
  template <class Space, class Whole>
  static void combine_across_processes(Whole& whole, communicator& everyone) {
    tree_visit_leaves([&](auto& leaf) {
      if constexpr (!element<std::remove_cvref_t<decltype(leaf)>>)
        space_on_mesh<Space>::combine_disjoint(everyone, leaf);
    }, whole);
  }

  template <class Device>
  static communicator& all_devices_comm(Device& here) {
    return [&]<class... Ns>(axes<Ns...>) -> communicator& {
      return here.template comm<Ns...>();
    }(typename Mesh::axis_names{});
  }

  // The extent of B's logical axis over every argument that has it (GlobalArrays at their
  // global extents), agreed as vmap agrees (transform/extent_agreement.hpp).
  template <class B, class... Args>
  static index_t agreed_extent(const Args&... args) {
    using L = typename B::logical;
    extent_agreement<L> agreement("xmap");
    int position = 0;
    auto visit = [&](const auto& arg) {
      ++position;
      using D = std::remove_cvref_t<decltype(arg)>;
      if constexpr (is_global_array_v<D>) {
        if constexpr (contains_v<L, typename D::axes_type>)
          agreement.absorb(arg.extents()[index_of_v<L, typename D::axes_type>], position);
      } else {
        tree_visit_leaves([&](const auto& leaf) {
          using Leaf = decltype(leaf);
          if constexpr (!element<std::remove_cvref_t<Leaf>>) {
            if constexpr (contains_v<L, visible_t<expr_t<Leaf>>>) agreement.absorb(extent_of<L>(as_expr(leaf)), position);
          }
        }, arg);
      }
    };
    (visit(args), ...);
    return agreement.extent();
  }

  template <class B>
  void check_divides(placed_axis& p) const {
    p.local = p.global;
    if constexpr (is_mesh_bound_v<B>) {
      using M = typename B::mesh_axis;
      index_t devices = mesh.template size<M>();
      if (p.global % devices != 0)
        throw shape_error("nax: xmap: axis '" + std::string(axis_name<typename B::logical>()) + "' of extent " +
                          std::to_string(p.global) + " does not divide evenly over mesh axis '" +
                          std::string(axis_name<M>()) + "' of size " + std::to_string(devices));
      p.local = p.global / devices;
    }
  }

  template <class B, class Device>
  static void place(placed_axis& p, Device& device) {
    if constexpr (is_mesh_bound_v<B>) {
      using M = typename B::mesh_axis;
      p.offset = index_t(device.template coordinate<M>()) * p.local;
      p.comm = &device.template comm<M>();
    }
  }

  // A GlobalArray is read shard by shard: its split axes must be split as xmap binds them.
  template <class Arg>
  void check_global_array_sharding(const Arg& arg) const {
    using D = std::remove_cvref_t<Arg>;
    if constexpr (is_global_array_v<D>) {
      // Shards are read as they lie, so the array must have been placed on a mesh of this shape.
      bool same_mesh = arg.device_count() == mesh.device_count();
      for (int d = 0; same_mesh && d < mesh.device_count(); ++d) {
        auto c = mesh.coordinates(d);
        same_mesh = std::equal(c.begin(), c.end(), arg.coordinates(d).begin(), arg.coordinates(d).end());
      }
      if (!same_mesh) {
        std::string shape;
        for (int extent : mesh.shape()) shape += (shape.empty() ? "" : " x ") + std::to_string(extent);
        throw argument_error("nax: xmap: a GlobalArray argument was placed on a mesh of " +
                             std::to_string(arg.device_count()) + " devices laid out differently from the xmap's mesh (" +
                             shape + " = " + std::to_string(mesh.device_count()) +
                             " devices); gather() it or device_put it on this mesh");
      }
      [&]<class... As>(axes<As...>) {
        std::size_t j = 0;
        auto check = [&]<class A>(std::type_identity<A>) {
          int expected = -1;
          constexpr std::size_t k = binding_index_v<A, Bs...>;
          if constexpr (k != npos) {
            if constexpr (is_mesh_bound_v<binding<k>>)
              expected = int(index_of_v<typename binding<k>::mesh_axis, typename Mesh::axis_names>);
          }
          if (arg.split_over()[j] >= 0 && arg.split_over()[j] != expected)
            throw argument_error("nax: xmap: a GlobalArray argument splits axis '" + std::string(axis_name<A>()) +
                                 "' differently from the xmap's bindings; gather() it or device_put it to match");
          ++j;
        };
        (check(std::type_identity<As>{}), ...);
      }(typename D::axes_type{});
    }
  }

  // f on this device: arguments placed (their parts, mapped axes hidden), outputs finished.
  template <class... Args>
  auto run_on_device(const std::array<placed_axis, nb>& placed, int device, Args&&... args) const {
    auto prepare = [&](auto&& arg) -> decltype(auto) {
      using Arg = decltype(arg);
      using D = std::remove_cvref_t<Arg>;
      if constexpr (is_global_array_v<D>) {
        // This device's shard; axes split by the GlobalArray are already this device's part.
        auto e = as_expr(arg.shard_of(device).view());
        std::size_t k = 0;
        auto step = [&]<class B>(auto current, std::type_identity<B>) {
          using L = typename B::logical;
          const placed_axis& p = placed[k++];
          if constexpr (contains_v<L, typename D::axes_type>) {
            constexpr std::size_t j = index_of_v<L, typename D::axes_type>;
            if constexpr (is_mesh_bound_v<B>) {
              if (arg.split_over()[j] < 0) return hide_axis<L>(narrow_axis<L>(std::move(current), p.offset, p.local));
              return hide_axis<L>(narrow_axis<L>(std::move(current), 0, p.local));
            } else {
              return hide_axis<L>(narrow_axis<L>(std::move(current), 0, p.local));
            }
          } else {
            return current;
          }
        };
        return fold_steps(std::move(e), step, std::type_identity<Bs>{}...);
      } else if constexpr (!(argument_mapped<typename Bs::logical, mapped_t, Arg>() || ...))
        return std::forward<Arg>(arg);
      else
        return tree_transform_leaves(std::forward<Arg>(arg), [&](auto&& leaf) {
          return place_leaf<Bs...>(std::forward<decltype(leaf)>(leaf), placed);
        });
    };
    auto result = f(prepare(std::forward<Args>(args))...);
    auto finish = [](auto&& output) {
      return tree_transform_leaves(std::forward<decltype(output)>(output),
                                   [](auto&& leaf) { return finish_xmap_leaf<Bs...>(std::forward<decltype(leaf)>(leaf)); });
    };
    using R = decltype(result);
    if constexpr (is_std_tuple<R>::value || is_std_pair<R>::value)
      return std::apply([&](auto&&... outputs) { return std::tuple(finish(std::move(outputs))...); }, std::move(result));
    else
      return finish(std::move(result));
  }

  // Every output leaf evaluated on this device (numbers stay numbers).
  template <class Space, class Outputs>
  static auto evaluate_on_device(const Outputs& outputs, typename Space::context& ctx) {
    auto evaluate = [&](const auto& leaf) {
      using E = std::remove_cvref_t<decltype(leaf)>;
      if constexpr (element<E>) {
        return leaf;
      } else {
        static_assert(require_bound<unbound_t<E>>::value);
        static_assert(require_not_mapped<hidden_t<E>>::value);
        typename Space::template array<typename E::value_type, typename E::axes_type> out(leaf.extents());
        Space::assign(Space::writable(out), leaf, ctx);
        return out;
      }
    };
    return tree_transform_leaves(outputs, evaluate);  // a std::tuple of outputs is a tree node
  }

  // The whole output: mesh-bound axes at their global extents, zero-filled.
  template <class Local>
  auto allocate_global(const Local& local) const {
    auto allocate = [&](const auto& leaf) {
      using X = std::remove_cvref_t<decltype(leaf)>;
      if constexpr (element<X>) {
        return leaf;
      } else {
        auto extents = leaf.extents();
        [&]<class... As>(axes<As...>) {
          std::size_t j = 0;
          ((extents[j] *= global_factor<As>(), ++j), ...);
        }(typename X::axes_type{});
        return X(extents);
      }
    };
    return tree_transform_leaves(local, allocate);
  }

  template <class A>
  index_t global_factor() const {
    constexpr std::size_t k = binding_index_v<A, Bs...>;
    if constexpr (k == npos) {
      return 1;
    } else if constexpr (!is_mesh_bound_v<binding<k>>) {
      return 1;
    } else {
      return mesh.template size<typename binding<k>::mesh_axis>();
    }
  }

  // This device's shard of every output, written by one device per shard: the one at
  // coordinate 0 of every mesh axis the output is replicated over.
  template <class Space, class Global, class Local, class Device>
  void write_shards(Global& global, const Local& local, const std::array<placed_axis, nb>& placed, Device& device) const {
    tree_visit_leaves([&](auto& g, const auto& l) { write_shard<Space>(g, l, placed, device); }, global, local);
  }

  template <class Space, class G, class L, class Device>
  void write_shard(G& global, const L& local, const std::array<placed_axis, nb>& placed, Device& device) const {
    using X = std::remove_cvref_t<L>;
    bool writer = true;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      auto check = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        // Replicated over a mesh axis when none of its axes binds there (several may share one).
        using M = typename binding<K>::mesh_axis;
        if constexpr (is_mesh_bound_v<binding<K>> && !varies_over_mesh_axis<X, M>())
          if (device.template coordinate<M>() != 0) writer = false;
      };
      (check(std::integral_constant<std::size_t, I>{}), ...);
    }(std::make_index_sequence<nb>{});
    if (!writer) return;
    if constexpr (element<X>) {
      global = local;
    } else {
      auto view = Space::writable(global);
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((view = narrow_if_present<typename binding<I>::logical>(view, placed[I])), ...);
      }(std::make_index_sequence<nb>{});
      // On the results' device: a shard from another GPU is copied there.
      auto ctx = space_on_mesh<Space>::context_for(global);
      Space::assign(view, leaf_of(local.view()), ctx);
    }
  }

  template <class X, class M>
  static constexpr bool varies_over_mesh_axis() {
    return ((std::is_same_v<typename Bs::mesh_axis, M> && contains_axis<X, typename Bs::logical>()) || ...);
  }
  template <class X, class A>
  static constexpr bool contains_axis() {
    if constexpr (element<X>) return false;
    else return contains_v<A, typename X::axes_type>;
  }
  template <class A, class V>
  static V narrow_if_present(const V& view, const placed_axis& p) {
    if constexpr (contains_v<A, typename V::axes_type>) return narrow<A>(view, p.offset, p.local);
    else return view;
  }
};

}  // namespace detail

// xmap<bind<logical, mesh_axis>..., bind<vectorised_logical>...>(f, mesh).
template <class... Bs, class F, class MeshT>
auto xmap(F f, MeshT mesh) {
  using MeshAxes = typename MeshT::axis_names;
  static_assert(sizeof...(Bs) >= 1, "nax: xmap needs at least one bind<logical, mesh_axis>");
  static_assert((detail::require_bound_to_mesh_axis<Bs, MeshAxes>::value && ...));
  static_assert(detail::require_unique_axes<axes<typename Bs::logical...>>::value);
  return detail::xmapped<MeshT, F, Bs...>{std::move(f), std::move(mesh)};
}

// pmap<Axis>(f, mesh): Axis split over the one axis of mesh, one member per device (its
// extent must equal the number of devices, as jax.pmap).
template <class Axis, class F, class MeshT>
auto pmap(F f, MeshT mesh) {
  static_assert(MeshT::rank == 1, "nax: pmap runs over a one-axis mesh; use xmap for more mesh axes");
  using MeshAxis = detail::at_t<0, typename MeshT::axis_names>;
  auto mapped = xmap<bind<Axis, MeshAxis>>(std::move(f), mesh);
  return [mapped, devices = mesh.device_count()](auto&&... args) {
    index_t extent = -1;
    auto check = [&](const auto& arg) {
      detail::tree_visit_leaves([&](const auto& leaf) {
        if constexpr (!element<std::remove_cvref_t<decltype(leaf)>>) {
          if constexpr (detail::contains_v<Axis, detail::visible_t<detail::expr_t<decltype(leaf)>>>)
            extent = detail::extent_of<Axis>(detail::as_expr(leaf));
        }
      }, arg);
    };
    (check(args), ...);
    if (extent != devices)
      throw shape_error("nax: pmap over '" + std::string(axis_name<Axis>()) + "': its extent " + std::to_string(extent) +
                        " must equal the " + std::to_string(devices) + " devices of the mesh");
    return mapped(std::forward<decltype(args)>(args)...);
  };
}

}  // namespace nax
