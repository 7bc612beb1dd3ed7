// expect: to_dlpack takes a nax::Array \(A is not one\): evaluate an expression first, nax::eval\(e\)
// expect: require_dlpack_array<
// to_dlpack of a lazy expression (it owns no memory to hand over).
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(i);

int main() {
  nax::Array<double, i> a({3});
  auto* m = nax::to_dlpack(a * 2.0);
  m->deleter(m);
}
