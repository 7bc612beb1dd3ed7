// expect: grad\(grad\(f\)\): f's differentiated argument must be one scalar
// expect: require_scalar_inner_variable<nax::detail::ad::variable<double, nax::axes<i>,
// grad(grad(f)) of a function of a vector: the inner gradient is a vector, not the scalar the
// outer grad needs.
#include <nax/nax.hpp>
NAX_AXIS(i);
int main() {
  nax::Array<double, i> x({3});
  auto f = [](const auto& v) { return nax::sum(nax::tanh(v)); };
  auto h = nax::grad(nax::grad(f))(x);  // the inner gradient is a vector: no scalar to differentiate
  (void)h;
}
