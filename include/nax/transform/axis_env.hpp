// The axis environment: the extents of the mapped axes bound by the enclosing vmap / xmap
// calls on this thread, innermost last. Collectives read it while the user's function
// builds its expression (their compile-time check is the type's unbound set; this gives
// them the numbers). Transform layer; the list itself is in mesh/axis_bindings.hpp.
#pragma once
#include <string>
#include <vector>

#include "../core/axis.hpp"
#include "../core/config.hpp"
#include "../core/errors.hpp"
#include "../mesh/axis_bindings.hpp"

namespace nax::detail {

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
