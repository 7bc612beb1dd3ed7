// expect: memory_space<S>
// expect: combine_disjoint
// A memory space that lacks combine_disjoint (host_space with it taken away): the alias that
// every space lookup goes through refuses it by the concept's name.
#include <nax/nax.hpp>

struct incomplete_space {
  using context = nax::detail::host::context;
  using mesh_scope = nax::detail::host_space::mesh_scope;
  template <class T, class Axes>
  using array = nax::detail::host_space::array<T, Axes>;
  static constexpr bool parallel_shard_writes = true;
  static context make_context() { return {}; }
  static context make_mesh_context() { return {}; }
  template <class A>
  static context context_for(const A&) { return {}; }
  static int home() { return 0; }
  static void before_mesh() {}
  static void finish(context&) {}
  template <class T, class... As>
  static nax::ArrayView<T, As...> writable(nax::Array<T, As...>& a) { return a.view(); }
  template <class T, class... As>
  static auto read(const nax::ArrayView<T, As...>& v, context&) { return nax::detail::leaf_of(v); }
  template <class T, class... As, class E>
  static void assign(const nax::ArrayView<T, As...>&, const E&, context&) {}
  template <class C, class T, class... As>
  static void sum_over_members(C&, nax::Array<T, As...>&) {}
};

int main() {
  nax::detail::checked_space_t<incomplete_space> space;
  (void)space;
}
