// expect: nax: a collective over this reduction \(Op\) has no communicator operation
// expect: require_communicator_op<logical_or_op>
// A reduction added to nax without a communicator operation: once it silently became min
// inside a collective; now the communicators' dispatch refuses it by name.
#include <nax/nax.hpp>

#include "custom_reduction.hpp"

int main() {
  constexpr auto op = nax::detail::reduce_op_of<logical_or_op>();
  (void)op;
}
