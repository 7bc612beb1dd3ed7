// expect: mesh_hooks_of
// expect: M::combine_disjoint\(comm, a\)
// A memory space whose mesh hooks lack combine_disjoint (the host's with it taken away):
// xmap, grad's scatter rule and GlobalArray reach them through checked_space_on_mesh_t, which
// refuses them by the concept's name.
#include <nax/nax.hpp>

struct other_space : nax::detail::host_space {};

template <>
struct nax::detail::space_on_mesh<other_space> {
  using hooks = space_on_mesh<host_space>;
  using context = hooks::context;
  using mesh_scope = hooks::mesh_scope;
  static constexpr bool parallel_shard_writes = true;
  static int home() { return 0; }
  static void before_mesh() {}
  static context make_mesh_context() { return {}; }
  static void finish(context&) {}
  template <class A>
  static context context_for(const A&) { return {}; }
  template <class T, class... As>
  static void sum_over_members(communicator&, Array<T, As...>&) {}
};

int main() {
  using hooks = nax::detail::checked_space_on_mesh_t<other_space>;
  (void)sizeof(hooks);
}
