// expect: nax: view_of\(m\): m \(M\) says nothing of its rank: it needs a rank\(\)
// expect: require_foreign_rank_known<strided_without_rank>
// A strided view with no rank(): the number of names could not be checked.
#include <nax/nax.hpp>

#include "view_of_strided.hpp"

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  float memory[4] = {};
  auto v = nax::view_of<in, out>(strided_without_rank{memory});
  (void)v;
}
