// expect: this memory space has no space_on_mesh
// expect: include <nax/cuda.hpp>
// A memory space that a backend added without its mesh hooks (no space_on_mesh
// specialisation): xmap, grad's scatter rule and GlobalArray reach the hooks through
// checked_space_on_mesh_t, which stops at the primary template's message instead of
// guessing the host's behaviour.
#include <nax/nax.hpp>

struct space_without_hooks : nax::detail::host_space {};

int main() {
  using hooks = nax::detail::checked_space_on_mesh_t<space_without_hooks>;
  (void)sizeof(hooks);
}
