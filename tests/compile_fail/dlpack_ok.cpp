// expect-compile
// The control of dlpack_lvalue, dlpack_expression and dlpack_element: a moved Array and an
// evaluated expression handed over, legacy and versioned, and taken back as double, const
// double and bool.
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(i);
NAX_AXIS(j);

int main() {
  nax::Array<double, i, j> a({3, 2});
  auto t = nax::from_dlpack<double, i, j>(nax::to_dlpack(std::move(a)));
  auto r = nax::from_dlpack<const double, j>(nax::to_dlpack_versioned(nax::eval(nax::sum<i>(t.view()))));
  auto flags = nax::from_dlpack<bool, j>(nax::to_dlpack(nax::eval(r.view() > 0.0)));
  (void)flags;
}
