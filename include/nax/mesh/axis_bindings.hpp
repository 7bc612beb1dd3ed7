// What a thread knows of the mapped axes around it: the bindings of the enclosing vmap / xmap
// calls, innermost last (transform/axis_env.hpp pushes and reads them). Here, below the
// transforms, because a mesh device starts with none: the device threads (thread_pool.hpp)
// begin each run with an empty list, whichever thread runs it.
#pragma once
#include <vector>

#include "../core/config.hpp"

namespace nax::detail {

class communicator;  // mesh/communicator.hpp

// A unique address per axis tag type, to find an axis at run time.
template <class A>
const void* axis_key() {
  static const char key = 0;
  return &key;
}

struct axis_binding {
  const void* key;
  index_t local_extent;   // the part of the axis this device holds (the whole axis under vmap)
  index_t global_extent;  // the whole axis
  index_t offset;         // where the local part starts
  communicator* comm;     // the mesh axis's communicator, or null when vectorised locally
};

inline std::vector<axis_binding>& axis_environment() {
  thread_local std::vector<axis_binding> bindings;
  return bindings;
}

}  // namespace nax::detail
