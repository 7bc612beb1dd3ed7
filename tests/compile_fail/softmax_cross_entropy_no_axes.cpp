// expect: nax: softmax_cross_entropy<Axes...>\(logits, labels\) needs the class axes
// The cross-entropy sums over the class axes, which must be named.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);

int main() {
  nax::Array<float, batch, vocab> logits({2, 3}), labels({2, 3});
  auto loss = nax::softmax_cross_entropy(logits, labels);
  (void)loss;
}
