// expect-compile
// The sort family used as intended: sort, argsort, top_k, searchsorted, quantile and median, of
// floats, integers and bools, inside grad and vmap.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(vocab);
NAX_AXIS(best);
NAX_AXIS(probe);

int main() {
  nax::Array<float, batch, vocab> logits({2, 10});
  nax::Array<float, probe> probes({3});
  auto [values, indices] = nax::top_k<vocab, best>(logits, 3);
  nax::Array<float, batch, best> v = values;
  nax::Array<nax::index_t, batch, best> i = indices;
  nax::Array<float, batch, vocab> sorted = nax::sort<vocab>(logits, true);
  nax::Array<nax::index_t, batch, vocab> order = nax::argsort<vocab>(nax::cast<int>(logits) > 0);
  nax::Array<nax::index_t, batch, probe> at = nax::searchsorted<vocab>(sorted, probes, nax::side::right);
  nax::Array<float, batch> q = nax::quantile<vocab>(logits, 0.9, nax::quantile_method::nearest) + nax::median<vocab>(logits);
  nax::Array<float, batch, probe> qs = nax::quantile<vocab>(logits, probes);
  auto g = nax::grad([](const auto& x) { return nax::sum(nax::sort<vocab>(x) * nax::median<vocab>(x)); })(logits);
  auto per_row = nax::vmap<batch>([](const auto& row) { return nax::argsort<vocab>(row); })(logits);
  nax::Array<float, batch> clipped = nax::clip(q, 0.f, 1.f);
  (void)v, (void)i, (void)order, (void)at, (void)qs, (void)g, (void)per_row, (void)clipped;
}
