// expect: nax: device_put_like: x's element type differs from the GlobalArray it is placed like
// expect: require_same_element_as_like<double, float>
// A GlobalArray of floats cannot take doubles silently: cast them first.
#include <nax/nax.hpp>

NAX_AXIS(in);
NAX_AXIS(data);

int main() {
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  auto g = nax::device_put<nax::shard<in, data>>(mesh, nax::Array<float, in>({4}));
  auto h = nax::device_put_like(g, nax::Array<double, in>({4}));
  (void)h;
}
