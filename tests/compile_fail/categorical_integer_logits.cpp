// expect: nax::random::categorical needs floating-point logits
// categorical draws from softmax(logits): integer scores are a mistake (cast them first).
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);

int main() {
  nax::Array<int, batch, vocab> scores({2, 5});
  auto draw = nax::random::categorical<vocab>(nax::random::key(0), scores);
  (void)draw;
}
