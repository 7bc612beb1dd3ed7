// expect-compile
// The control for the map_* snippets: the same calls with valid bindings and specs compile.
#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(hidden);
NAX_AXIS(in);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax::Array<float, batch, hidden> x({8, 4});
  auto a = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(
      [](const auto& v) { return nax::tuple(v * 2.f, nax::psum<batch, hidden>(v)); }, mesh)(x);
  nax::Array<float, batch, in> r({4, 3});
  nax::Array<float, batch, in> b = nax::vmap<batch>([](const auto& row) { return row * 2.f; }, nax::out_axes(nax::at<1>))(r);
  nax::Array<float, in> c = nax::vmap<batch>([](const auto& row) { return nax::psum<batch>(row); },
                                            nax::out_axes(nax::replicated))(r);
  nax::Array<float, in> y({3});
  nax::Array<float, batch, in> d = nax::vmap<batch>([](const auto& u, const auto& v) { return u + v; },
                                                    nax::in_axes(nax::mapped, nax::none))(r, y);
  nax::Array<float, batch, in> e = nax::vmap<batch>([](const auto& v) { return v * 2.f; }, nax::map_size{4})(y);
  (void)a, (void)b, (void)c, (void)d, (void)e;
}
