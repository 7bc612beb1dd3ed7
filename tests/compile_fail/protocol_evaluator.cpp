// expect: (evaluator<Ev>|does not satisfy 'evaluator')
// expect: fold
// An evaluator without fold: the loops that merge axes refuse it by the concept's name.

#include <nax/nax.hpp>
#include <array>

struct no_fold_eval {
  using value_type = float;
  void set_row(const nax::index_t*) {}
  template <bool Unit>
  float get(nax::index_t) const { return 0.f; }
  bool unit_inner() const { return true; }
  bool can_fold(std::size_t, nax::index_t, nax::index_t) const { return true; }
  template <class V>
  void visit_leaves(V&&) const {}
};

int main() {
  no_fold_eval ev;
  std::array<nax::index_t, 2> extents{2, 3};
  nax::detail::fold_inner_axes(ev, extents, 0, static_cast<std::array<nax::index_t, 2>*>(nullptr));
}
