// nax::optim on device arrays: adamw with a schedule after clip_by_global_norm, update +
// apply_updates and update_and_apply, over a Hana struct of nax::cuda::Arrays, against the same
// steps on host arrays. Without a GPU it compiles (CI) and skips.
#include <nax/optim.hpp>

#include "device_support.hpp"

#include <boost/hana/define_struct.hpp>

namespace {
NAX_AXIS(row);
NAX_AXIS(col);

template <template <class, class...> class A>
struct Dense {
  BOOST_HANA_DEFINE_STRUCT(Dense, (A<float, row, col>, w), (A<float, col>, b));
};

namespace optim = nax::optim;
}  // namespace

TEST_CASE("cuda optim: clip_by_global_norm + adamw on device arrays matches the host") {
  if (nax_cuda_test::no_device()) return;
  const nax::index_t n = 33, m = 5;
  auto opt = optim::chain(optim::clip_by_global_norm(1.0),
                          optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 0.1, 2, 10), 0.9, 0.999, 1e-8, 0.0, 0.01));
  Dense<nax::Array> host{nax_cuda_test::random_array<float, row, col>({n, m}), nax_cuda_test::random_array<float, col>({m})};
  Dense<nax::cuda::Array> device{nax::cuda::to_device(host.w), nax::cuda::to_device(host.b)};
  auto host_state = opt.init(host);
  auto device_state = opt.init(device);
  for (int step = 0; step < 4; ++step) {
    Dense<nax::Array> g{nax_cuda_test::random_array<float, row, col>({n, m}), nax_cuda_test::random_array<float, col>({m})};
    Dense<nax::cuda::Array> dg{nax::cuda::to_device(g.w), nax::cuda::to_device(g.b)};
    auto [hu, hs] = opt.update(g, host_state, host);
    host = optim::apply_updates(host, hu);
    host_state = std::move(hs);
    if (step % 2 == 0) {
      auto [du, ds] = opt.update(dg, device_state, device);
      device = optim::apply_updates(device, du);
      device_state = std::move(ds);
    } else {
      auto [dp, ds] = optim::update_and_apply(opt, dg, std::move(device_state), std::move(device));
      device = std::move(dp);
      device_state = std::move(ds);
    }
    const nax::Array<float, row, col> w = nax::cuda::to_host(device.w);
    const nax::Array<float, col> b = nax::cuda::to_host(device.b);
    for (nax::index_t k = 0; k < w.size(); ++k) REQUIRE(std::abs(w.data()[k] - host.w.data()[k]) <= 1e-5f * (1 + std::abs(host.w.data()[k])));
    for (nax::index_t k = 0; k < b.size(); ++k) REQUIRE(std::abs(b.data()[k] - host.b.data()[k]) <= 1e-5f * (1 + std::abs(host.b.data()[k])));
  }
}
