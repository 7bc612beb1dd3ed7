// expect: nax: take_along<A>\(x, idx\) needs every axis of idx among x's
// expect: require_indices_along<vocab, nax::axes<batch, tok>, nax::axes<batch, vocab> ?>
// take_along picks one index per position of x's other axes; an index axis x lacks (tok)
// belongs to take.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);
NAX_AXIS(tok);

int main() {
  nax::Array<float, batch, vocab> logp({2, 5});
  nax::Array<int, batch, tok> labels({2, 3});
  auto e = nax::take_along<vocab>(logp, labels);
  (void)e;
}
