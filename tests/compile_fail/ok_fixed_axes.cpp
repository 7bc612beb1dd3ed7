// expect-compile
// Control: the axis-name errors fixed: the snippets' operations with names the operands have.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);
NAX_AXIS(outer);
NAX_AXIS(inner);

int main() {
  nax::Array<float, batch, in> x({4, 3});
  nax::Array<float, in, out> w({3, 2});

  nax::Array<float, batch> s = nax::sum<in>(x);      // reduce an axis x has
  nax::Array<int, batch> i = nax::argmax<in>(x);
  nax::Array<float, batch> mean = nax::mean<in>(x);
  nax::Array<float, batch, out> p = nax::dot<in>(x, w);  // contract the shared axis
  nax::Array<float, batch, b2> q = nax::rename<out, b2>(nax::dot<in>(x, w));  // rename to match
  nax::Array<float, in, batch> t = nax::transpose<in, batch>(x);  // a full permutation
  nax::Array<float, batch, in> back = t;             // assignment by name: a transpose
  x = nax::broadcast_to<batch, in>(nax::sum<in>(x), {4, 3});  // same axis set again
  auto sp = nax::split<batch, outer, inner>(x, 2);   // fresh names
  nax::Array<float, b2, in> merged = nax::merge<outer, inner, b2>(sp);
  nax::Array<float, batch, in> joined = nax::concatenate<batch>(x, back);
  nax::Array<float, b2, batch, in> stacked = nax::stack<b2>(x, t);  // same names, any order
  nax::Array<float> total = nax::sum(x);
  float v = total.item() + nax::sum(x).item() + nax::item(nax::max(x));
  auto e = x.extent<in>() + x.view().extent<batch>();
  (void)s, (void)i, (void)mean, (void)p, (void)q, (void)merged, (void)joined, (void)stacked;
  return static_cast<int>(v) + static_cast<int>(e) == 7 ? 0 : 1;
}
