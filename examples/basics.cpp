// nax basics: named axes, broadcasting and contraction by name, fused evaluation, and the
// JAX program's linear model `dot(x, w) + b` with a squared loss, on one batch, on the host.
#include <cmath>
#include <iostream>

#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  // A batch of 128 examples with 3 features; deterministic values so the output is stable.
  nax::Array<float, batch, in> x({128, 3});
  for (int i = 0; i < 128; ++i)
    for (int j = 0; j < 3; ++j) x(i, j) = std::sin(0.1f * float(i * 3 + j));
  nax::Array<float, in, out> w = nax::ones<float, in, out>(3, 1);
  nax::Array<float, out> b({1}, {0.5f});

  auto pred = nax::dot<in>(x, w) + b;        // lazy; axes {batch, out}; b broadcast over batch by name
  nax::Array<float, batch, out> p = pred;    // one fused pass (after the GEMM)
  std::cout << "first predictions " << nax::eval(nax::slice<batch>(p, 0, 3)) << "\n";

  // Targets of a known linear rule, and the JAX program's squared loss.
  nax::Array<float, batch, out> y = nax::dot<in>(x, nax::full<float, in, out>(0.25f, 3, 1)) - 1.0f;
  float loss = nax::mean(nax::square(pred - y)).item();
  std::cout << "loss " << loss << "\n";

  // Reductions, relayouts and where, all by name.
  std::cout << "sum over batch " << nax::eval(nax::sum<batch>(x)) << "\n";
  std::cout << "max over in, first 4 " << nax::eval(nax::slice<batch>(nax::max<in>(x), 0, 4)) << "\n";
  nax::Array<float, in, batch> xt = nax::transpose<in, batch>(x);  // same values, other memory order
  std::cout << "x(5, 2) = " << x(5, 2) << " = xt(2, 5) = " << xt(2, 5) << "\n";
  auto first = nax::eval(nax::rename<batch, b2>(nax::slice<batch>(x, 0, 16)));
  std::cout << "renamed slice has " << first.extent<b2>() << " rows along b2\n";
  std::cout << "relu of the first rows " << nax::eval(nax::where(nax::slice<batch>(x, 0, 2) > 0.f, nax::slice<batch>(x, 0, 2), 0.f))
            << "\n";
  // nax::sum<out>(x);  // does not compile: axis not found, and the error names `out` and x's axes
  return 0;
}
