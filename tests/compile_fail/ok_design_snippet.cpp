// expect-compile
// Control: DESIGN.md section 1, the user's view, without its failing line (nax::sum<out>(x)).
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<float, batch, in> x({128, 3});
  nax::Array<float, in, out> w = nax::ones<float, in, out>(3, 1);
  nax::Array<float, out> b({1});

  auto pred = nax::dot<in>(x, w) + b;
  nax::Array<float, batch, out> p = pred;
  float loss = nax::mean(nax::square(pred - p)).item();

  auto s = nax::sum<batch>(x);
  auto m = nax::max<in>(x);
  auto t = nax::transpose<in, batch>(x);
  auto r = nax::rename<batch, b2>(x);
  auto sl = nax::slice<batch>(x, 0, 16);
  auto wh = nax::where(x > 0.f, x, 0.f);
  (void)s, (void)m, (void)t, (void)r, (void)sl, (void)wh;
  return loss == 0.f ? 0 : 1;
}
