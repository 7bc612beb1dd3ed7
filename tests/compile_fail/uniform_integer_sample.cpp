// expect: nax::random: uniform, normal, truncated_normal, bernoulli and categorical sample float or double
// expect: require_floating_sample<int>
// uniform with an integer element type (integers in a range are randint's).
#include <nax/nax.hpp>

NAX_AXIS(sample);

int main() {
  auto u = nax::random::uniform<int, sample>(nax::random::key(0), {8});
  (void)u;
}
