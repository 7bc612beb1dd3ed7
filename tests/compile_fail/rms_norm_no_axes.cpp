// expect: nax: rms_norm<Axes...>\(x, scale\) needs the axes to normalise over
// rms_norm without the axes it normalises over.
#include <nax/nax.hpp>

NAX_AXIS(embed);

int main() {
  nax::Array<float, embed> x({4}), scale({4});
  auto y = nax::rms_norm(x, scale);
  (void)y;
}
