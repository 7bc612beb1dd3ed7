// expect-compile
// The control of softmax_no_axes and softmax_axis_missing: the nn functions and the added
// elementwise ops over named axes, on the host and inside grad and vmap.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);

int main() {
  nax::Array<float, batch, vocab> logits({2, 3}), labels({2, 3});
  nax::Array<float, batch, vocab> p = nax::softmax<vocab>(logits) + nax::log_softmax<vocab, batch>(logits);
  nax::Array<float, batch> loss = nax::softmax_cross_entropy<vocab>(logits, labels) + nax::var<vocab>(logits, 1);
  nax::Array<float, batch, vocab> s = nax::standardize<vocab>(logits) * nax::gelu(logits) + nax::gelu<false>(logits) +
                                      nax::silu(logits) + nax::arctan2(logits, p) + nax::remainder(logits, 2.f);
  auto g = nax::grad([&](const auto& x) { return nax::mean(nax::softmax_cross_entropy<vocab>(x, labels)); })(logits);
  nax::Array<float, batch> v = nax::vmap<batch>([](const auto& row) { return nax::std(nax::log_softmax<vocab>(row)); })(logits);
  (void)loss;
  (void)s;
  (void)g;
  (void)v;
}
