// Which backend runs a program: the memory space of the arrays it reads, and the protocol a
// space follows. The layers above (grad's tape, xmap, GlobalArray, the optimizers) ask
// space_of_t and call the space; none of them names a backend. The host is the default:
// backend/host/space.hpp defines host_space; a backend claims its programs by specialising
// space_of (the CUDA backend for every expression that reads device arrays:
// backend/cuda/space.hpp). How a space takes part in a mesh (xmap's per-device hooks and
// the communicator calls) is mesh/space_on_mesh.hpp's, a layer above.
#pragma once
#include <concepts>
#include <cstddef>
#include <type_traits>

#include "../core/array_view.hpp"
#include "../core/axis_list.hpp"

namespace nax::detail {

struct host_space;  // backend/host/space.hpp

// The memory-space protocol: what grad's tape, xmap and GlobalArray call to run a program in
// a space. A space provides
// - `context`, one evaluation context that a program's passes share, and make_context();
// - `array<T, Axes>`, the array type that holds a result (zero-filled when made from extents);
// - writable(a), a writable ArrayView of such an array (its pointer may be device memory);
// - read(view, ctx), a leaf of this space reading a view that writable gave;
// - assign(view, e, ctx), which writes an expression into that memory;
// - materialise(e, ctx), scalar(leaf) and uninitialised<T, Axes>(extents), checked where used.
// A space that lacks one fails where space_of_t names it, with this concept's name.
template <class S>
concept memory_space = requires(typename S::context& ctx, typename S::template array<float, axes<>>& a,
                                const ArrayView<float>& out) {
  { S::make_context() } -> std::same_as<typename S::context>;
  { S::writable(a) } -> std::same_as<ArrayView<float>>;
  S::assign(out, S::read(out, ctx), ctx);
};

template <memory_space S>
using checked_space_t = S;

// The space of an expression: the host unless a backend claims it.
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
