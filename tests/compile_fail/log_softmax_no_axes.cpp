// expect: nax: log_softmax<Axes...>\(x\) needs the axes to normalise over, e.g. log_softmax<vocab>\(x\)
// log_softmax normalises over named axes; with none named there is no default.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);

int main() {
  nax::Array<float, batch, vocab> logits({2, 3});
  auto p = nax::log_softmax(logits);
  (void)p;
}
