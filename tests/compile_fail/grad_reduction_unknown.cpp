// expect: nax: grad: this reduction \(Op\) has no reverse-mode rule
// expect: require_reduction_rule<logical_or_op>
// A reduction added to nax without a reverse-mode rule: grad names it instead of asserting
// with no message.
#include <nax/nax.hpp>

#include "custom_reduction.hpp"

NAX_AXIS(row);

int main() {
  nax::Array<double, row> x({3});
  auto g = nax::grad([](const auto& v) { return nax::sum(nax::detail::make_reduce<logical_or_op, row>(v)); })(x);
  (void)g;
}
