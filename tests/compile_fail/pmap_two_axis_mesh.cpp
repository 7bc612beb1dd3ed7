// expect: nax: pmap runs over a one-axis mesh; use xmap for more mesh axes
// pmap over a mesh of two axes (data, model): pmap has one mesh axis to split over.
#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  nax::Array<float, batch> x({4});
  auto y = nax::pmap<batch>([](const auto& v) { return v * 2.f; }, mesh)(x);
  (void)y;
}
