// expect-compile
// The control of take_float_indices, take_axis_missing, take_along_foreign_axis,
// scatter_update_axes and categorical_integer_logits: take, take_along, one_hot, the scatters
// and categorical used as intended, inside grad and vmap too.
#include <nax/nax.hpp>

#include <cstdint>

NAX_AXIS(batch);
NAX_AXIS(vocab);
NAX_AXIS(width);
NAX_AXIS(tok);

int main() {
  nax::Array<float, vocab, width> table({5, 3});
  nax::Array<int, batch, tok> tokens({2, 4});
  nax::Array<std::uint8_t, batch> labels({2});
  nax::Array<float, batch, tok, width> e = nax::take<vocab>(table, tokens, nax::index_mode::wrap);
  nax::Array<float, batch, vocab> logits({2, 5});
  nax::Array<float, batch> pick = nax::take_along<vocab>(nax::log_softmax<vocab>(logits), labels);
  nax::Array<float, batch, vocab> oh = nax::one_hot<vocab>(labels, 5);
  nax::Array<float, vocab, width> s = nax::scatter_add<vocab>(table, tokens, e) + nax::scatter_max<vocab>(table, tokens, e);
  auto g = nax::grad([&](const auto& t) { return nax::sum(nax::square(nax::take<vocab>(t, tokens))); })(table);
  nax::Array<float, batch, tok, width> v = nax::vmap<batch>([&](const auto& tk) { return nax::take<vocab>(table, tk); })(tokens);
  nax::Array<std::int32_t, batch> token = nax::random::categorical<vocab>(nax::random::key(0), logits);
  (void)token;
  (void)pick;
  (void)oh;
  (void)s;
  (void)g;
  (void)v;
}
