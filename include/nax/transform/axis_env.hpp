// The axis environment: the extents of the mapped axes bound by the enclosing vmap / xmap
// calls on this thread, innermost last. Collectives read it while the user's function
// builds its expression (their compile-time check is the type's unbound set; this gives
// them the numbers). Transform layer.
#pragma once
#include <string>
#include <vector>

#include "../core/axis.hpp"
#include "../core/config.hpp"
#include "../core/errors.hpp"

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

// Binds an axis for the lifetime of the scope.
class axis_scope {
 public:
  explicit axis_scope(const axis_binding& b) { axis_environment().push_back(b); }
  ~axis_scope() { axis_environment().pop_back(); }
  axis_scope(const axis_scope&) = delete;
  axis_scope& operator=(const axis_scope&) = delete;
};

// The innermost binding of A, or null when no enclosing map binds it.
template <class A>
const axis_binding* find_binding() {
  auto& env = axis_environment();
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if (it->key == axis_key<A>()) return &*it;
  return nullptr;
}

template <class A>
const axis_binding& binding_of() {
  auto& env = axis_environment();
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if (it->key == axis_key<A>()) return *it;
  throw argument_error("nax: unbound axis name: '" + std::string(axis_name<A>()) +
                       "' is not bound by an enclosing vmap/xmap/pmap");
}

}  // namespace nax::detail
