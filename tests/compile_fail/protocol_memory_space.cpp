// expect: (memory_space<S>|does not satisfy 'memory_space')
// expect: S::read\(out, ctx\)
// A memory space that lacks read (host_space with it taken away): the alias that every space
// lookup goes through refuses it by the concept's name.
#include <nax/nax.hpp>

struct incomplete_space {
  using context = nax::detail::host::context;
  template <class T, class Axes>
  using array = nax::detail::host_space::array<T, Axes>;
  static context make_context() { return {}; }
  template <class T, class... As>
  static nax::ArrayView<T, As...> writable(nax::Array<T, As...>& a) { return a.view(); }
  template <class T, class... As, class E>
  static void assign(const nax::ArrayView<T, As...>&, const E&, context&) {}
};

int main() {
  nax::detail::checked_space_t<incomplete_space> space;
  (void)space;
}
