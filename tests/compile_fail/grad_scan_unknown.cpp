// expect: nax: grad: a scan of this op \(Op\) has no rule
// expect: require_scan_rule<logical_or_op>
// A scan of a reduction op added to nax without rules: grad names it (it would otherwise have
// been given cummax's rule).
#include <nax/nax.hpp>

#include "custom_reduction.hpp"

NAX_AXIS(row);

int main() {
  nax::Array<double, row> x({3});
  auto g = nax::grad([](const auto& v) { return nax::sum(nax::detail::make_scan<logical_or_op, row>(v, false)); })(x);
  (void)g;
}
