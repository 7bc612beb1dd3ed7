// expect: to_dlpack\(a\) hands a's memory to the consumer, which frees it: pass std::move\(a\)
// expect: require_moved_array<nax::Array<double, [^>]*> ?&>
// to_dlpack of an array nax still owns (the consumer's deleter would free it under nax).
#include <nax/nax.hpp>
#include <nax/io.hpp>

NAX_AXIS(i);

int main() {
  nax::Array<double, i> a({3});
  auto* m = nax::to_dlpack(a);
  m->deleter(m);
}
