// A layer on a 4 x 2 (data, model) mesh of host devices: the batch is split over `data`, the
// hidden units over `model`. Data and model parallelism at once, which pmap cannot express.
// The result equals the same layer on one device: the mesh changes where work runs, not values.
#include <cmath>
#include <iostream>

#include <nax/nax.hpp>

NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);

int main() {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax::Array<float, batch, in> x({64, 16});
  nax::Array<float, in, hidden> w({16, 32});
  nax::Array<float, hidden> b({32});
  for (nax::index_t i = 0; i < x.size(); ++i) x.data()[i] = std::sin(0.1f * float(i));
  for (nax::index_t i = 0; i < w.size(); ++i) w.data()[i] = std::cos(0.05f * float(i)) / 4;
  for (nax::index_t i = 0; i < b.size(); ++i) b.data()[i] = 0.01f * float(i);

  auto layer = [](const auto& x, const auto& w, const auto& b) {
    auto h = nax::tanh(nax::dot<in>(x, w) + b);        // this device: 16 examples x 16 hidden units
    auto total = nax::psum<batch, hidden>(nax::sum(h));  // sum over the whole mesh
    return nax::tuple(h, total);
  };
  auto step = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(layer, mesh);
  auto [h, total] = step(x, w, b);

  nax::Array<float, batch, hidden> reference = nax::tanh(nax::dot<in>(x, w) + b);
  std::cout << "activations " << nax::describe(h) << ", largest difference from one device "
            << nax::max(nax::abs(h - reference)).item() << "\n";
  std::cout << "sum over the mesh " << total.item() << ", on one device " << nax::sum(reference).item() << "\n";
  return 0;
}
