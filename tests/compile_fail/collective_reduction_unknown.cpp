// expect: nax: a collective over this reduction \(Op\) has no communicator operation
// expect: require_communicator_op<logical_or_op>
// A reduction added to nax without a communicator operation: once it silently became min
// inside a collective; now the communicators' dispatch refuses it by name.
#include <nax/nax.hpp>

struct logical_or_op {
  template <class T>
  using result = T;
  template <class T>
  static constexpr T identity() { return T(0); }
  template <class T>
  static constexpr T combine(T a, T b) { return a || b; }
};

int main() {
  constexpr auto op = nax::detail::reduce_op_of<logical_or_op>();
  (void)op;
}
