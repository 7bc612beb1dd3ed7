// expect: assignment would narrow the element type \(Source to Destination\)
// expect: require_no_narrowing<int, float>
// ArrayView::assign of a float expression into an int view.
#include <nax/nax.hpp>

NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);

int main() {
  nax::Array<int, batch> i({3});
  nax::Array<float, batch> f({3});
  i.view().assign(f + 1.f);  // float into int
}
