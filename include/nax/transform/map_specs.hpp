// How arguments map in and how outputs map out of vmap / xmap / pmap (JAX's in_axes and
// out_axes, with names): in_axes(mapped | none | from<A>, ...), out_axes(at<P> | replicated, ...).
#pragma once
#include <cstddef>
#include <tuple>
#include <type_traits>

#include "../core/config.hpp"

namespace nax {

// in_axes: map the argument over the mapped axis if it has it (the default).
struct mapped_t {};
inline constexpr mapped_t mapped{};
// in_axes: do not map this argument (it is broadcast; it must not have the mapped axis).
struct none_t {};
inline constexpr none_t none{};
// in_axes: map this argument over its axis A, which takes the mapped axis's name.
template <class A>
struct from_t {
  using axis = A;
};
template <class A>
inline constexpr from_t<A> from{};

// out_axes: the mapped axis becomes visible at position P of the output (0 = first).
template <std::size_t P>
struct at_t {
  static constexpr std::size_t position = P;
};
template <std::size_t P>
inline constexpr at_t<P> at{};
// out_axes: the output is the same for every member (it must not vary over the mapped axis).
struct replicated_t {};
inline constexpr replicated_t replicated{};

template <class... Specs>
struct in_axes_t {
  std::tuple<Specs...> specs;
};
template <class... Specs>
in_axes_t<Specs...> in_axes(Specs... specs) {
  return {{specs...}};
}

template <class... Specs>
struct out_axes_t {
  std::tuple<Specs...> specs;
};
template <class... Specs>
out_axes_t<Specs...> out_axes(Specs... specs) {
  return {{specs...}};
}

// The extent of the mapped axis when no argument has it (e.g. a function of axis_index only).
struct map_size {
  index_t extent;
};

namespace detail {
template <class Default, std::size_t I, class... Specs>
constexpr auto spec_at_impl() {
  if constexpr (sizeof...(Specs) == 0) return std::type_identity<Default>{};
  else if constexpr (sizeof...(Specs) == 1) return std::type_identity<Specs...>{};
  else return std::type_identity<std::tuple_element_t<I, std::tuple<Specs...>>>{};
}
template <class Spec, std::size_t I>
struct spec_at;
template <class... Specs, std::size_t I>
struct spec_at<in_axes_t<Specs...>, I> {
  using type = typename decltype(spec_at_impl<mapped_t, I, Specs...>())::type;
};
template <class... Specs, std::size_t I>
struct spec_at<out_axes_t<Specs...>, I> {
  using type = typename decltype(spec_at_impl<nax::at_t<0>, I, Specs...>())::type;
};
// The spec of argument or output I: one spec applies to all; none given means the default.
template <class Spec, std::size_t I>
using spec_at_t = typename spec_at<Spec, I>::type;
}  // namespace detail

}  // namespace nax
