// expect: nax: softmax<Axes...>\(x\) needs the axes to normalise over, e.g. softmax<vocab>\(x\)
// softmax normalises over named axes; with none named there is no default (JAX's axis=-1 has
// no meaning for named axes).
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);

int main() {
  nax::Array<float, batch, vocab> logits({2, 3});
  auto p = nax::softmax(logits);
  (void)p;
}
