// expect: xmap binds logical axis L but no argument has an axis of that name
// expect: require_logical_axis_in_arguments<hidden, false>
// xmap binds hidden to the mesh axis data, but its only argument has axis batch alone.
#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(batch);
NAX_AXIS(hidden);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(4), {4});
  nax::Array<float, batch> x({8});
  auto y = nax::xmap<nax::bind<hidden, data>>([](const auto& v) { return v * 2.f; }, mesh)(x);
  (void)y;
}
