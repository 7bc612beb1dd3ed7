// Axis names: tag types declared with NAX_AXIS(name). Bottom of the core layer.
// Tag types rather than string template arguments: nvcc 13.0 breaks on class-type
// template arguments in host code (docs/toolchain.md), and tags work in kernels too.
#pragma once
#include <string_view>
#include <type_traits>

namespace nax {

// Every axis tag derives from this, so that an axis can be told from any other type.
struct axis_tag {};

template <class A>
concept axis = std::is_base_of_v<axis_tag, A> && std::is_empty_v<A>;

template <axis A>
constexpr std::string_view axis_name() {
  return A::axis_label();
}

}  // namespace nax

// NAX_AXIS(batch); declares the axis name `batch` in the current namespace.
#define NAX_AXIS(NAME) \
  struct NAME : ::nax::axis_tag { static constexpr const char* axis_label() { return #NAME; } }
