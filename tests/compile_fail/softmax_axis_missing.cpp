// expect: axis not found: the expression has no axis of this name
// expect: require_axis_present<hidden,
// softmax over an axis that the operand does not have names it.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);
NAX_AXIS(hidden);

int main() {
  nax::Array<float, batch, vocab> logits({2, 3});
  auto p = nax::log_softmax<hidden>(logits);
  (void)p;
}
