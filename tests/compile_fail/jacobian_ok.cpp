// expect-compile
// The control of jacobian_output: jacrev and jacfwd of a function with one array output.
#include <nax/nax.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  nax::Array<double, in> x({3});
  nax::Array<double, in, out> w({3, 2});
  auto f = [&](const auto& v) { return nax::dot<in>(nax::sin(v), w); };
  nax::Array<double, out, in> a = nax::jacrev(f)(x);
  nax::Array<double, out, in> b = nax::jacfwd(f)(x);
  (void)a;
  (void)b;
}
