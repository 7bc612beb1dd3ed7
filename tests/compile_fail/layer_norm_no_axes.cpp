// expect: nax: layer_norm<Axes...>\(x, scale, bias\) needs the axes to normalise over
// layer_norm without the axes it normalises over.
#include <nax/nax.hpp>

NAX_AXIS(embed);

int main() {
  nax::Array<float, embed> x({4}), scale({4}), bias({4});
  auto y = nax::layer_norm(x, scale, bias);
  (void)y;
}
