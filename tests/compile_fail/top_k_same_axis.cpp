// expect: nax: top_k<A, K>\(x, k\) needs a new axis name K for the k largest elements, not the sorted axis A
// expect: require_new_top_k_axis<vocab, vocab>
// top_k names its result axis after the sorted one: the k values need an axis of their own.
#include <nax/nax.hpp>

NAX_AXIS(vocab);

int main() {
  nax::Array<float, vocab> logits({10});
  auto best = nax::top_k<vocab, vocab>(logits, 3);
  (void)best;
}
