// The extent of a mapped axis, as the arguments that carry it agree on it: vmap and xmap
// read it argument by argument, keep the first extent seen, and raise shape_error at the
// first different one, naming both arguments (1-based) and both extents.
#pragma once
#include <optional>
#include <string>

#include "../core/axis.hpp"
#include "../core/config.hpp"
#include "../core/errors.hpp"

namespace nax::detail {

template <class Axis>
class extent_agreement {
 public:
  // `map` names the transform in the message ("vmap", "xmap"); `given` is an extent the
  // caller fixed (vmap's map_size), which every argument must then match.
  explicit extent_agreement(const char* map, std::optional<index_t> given = std::nullopt)
      : map_(map), extent_(given.value_or(-1)) {}

  // Argument `argument` (1-based) has extent `e` along Axis.
  void absorb(index_t e, int argument) {
    if (extent_ < 0) {
      extent_ = e;
      first_ = argument;
    } else if (e != extent_) {
      throw shape_error("nax: " + std::string(map_) + " over '" + std::string(axis_name<Axis>()) +
                        "': arguments disagree on its extent: " +
                        (first_ ? "argument " + std::to_string(first_) : std::string("map_size")) + " has " +
                        std::to_string(extent_) + ", argument " + std::to_string(argument) + " has " +
                        std::to_string(e));
    }
  }

  // The agreed extent; -1 when no argument carries the axis and none was given.
  index_t extent() const { return extent_; }

 private:
  const char* map_;
  index_t extent_;
  int first_ = 0;  // the argument that set the extent; 0: the caller's `given`
};

}  // namespace nax::detail
