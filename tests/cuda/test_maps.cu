// vmap and xmap over device arrays against the same programs on the host: every
// collective of a vectorised axis; xmap over a mesh of emulated host devices that all run on
// the current GPU (their collectives stage device data through host memory); xmap over a mesh
// of the CUDA devices (NCCL reads device memory in place); GlobalArrays with device shards on
// both kinds of mesh, read in place by xmap and gathered to the host; grad through psum_scatter
// of a replicated value, whose cotangent is summed over the devices through the memory space.
// The JAX program's pmap training step
// (value_and_grad, then pmean of the gradients) on device arrays is checked against the host
// by examples/train_pmap.cpp --cuda (CTest example.train_pmap_cuda).
#include "device_support.hpp"

#include <nax/mesh/nccl_communicator.hpp>

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(g);
NAX_AXIS(data);
using namespace nax_cuda_test;

// The collectives over the mapped axis i of 4 members; v has visible axis j of extent 4.
// (all_to_all has its own case below, vmap only: that case costs nvcc about 30 s, cudafe++
// most of it, and an xmap of it about 35 s more, for host code the host tests cover.)
auto every_collective = [](const auto& v) {
  return nax::tuple(nax::psum<i>(v) - 0.5f * nax::pmax<i>(v) + nax::pmean<i>(v) * nax::pmin<i>(v) +
                        nax::ppermute<i>(v, {{0, 1}, {1, 2}, {2, 3}}),
                    nax::all_gather<i, g>(v), nax::psum_scatter<i, j>(v) + nax::axis_index<i>() + nax::sum(v));
};

template <class Device, class Host>
void check_outputs(const Device& on_device, const Host& on_host) {
  auto [d0, d1, d2] = on_device;
  auto [h0, h1, h2] = on_host;
  check_same(nax::cuda::to_host(d0), nax::eval(h0));
  check_same(nax::cuda::to_host(d1), nax::eval(h1));
  check_same(nax::cuda::to_host(d2), nax::eval(h2));
}

}  // namespace

TEST_CASE("maps on the device: vmap's collectives") {
  if (no_device()) return;
  auto x = random_array<float, i, j>({4, 4});
  check_outputs(nax::vmap<i>(every_collective)(nax::cuda::to_device(x)), nax::vmap<i>(every_collective)(x));
}

TEST_CASE("maps on the device: vmap's all_to_all") {
  if (no_device()) return;
  // Member m's block b of j goes to member b, at index m of the new axis g (jax.lax.all_to_all).
  auto x = random_array<float, i, j>({4, 4});
  auto f = [](const auto& v) { return nax::all_to_all<i, j, g>(v * 2.f); };
  nax::Array<float, i, g> host = nax::vmap<i>(f)(x);
  for (nax::index_t m = 0; m < 4; ++m)
    for (nax::index_t b = 0; b < 4; ++b) CHECK(host(b, m) == 2.f * x(m, b));
  const auto dx = nax::cuda::to_device(x);
  nax::cuda::Array<float, i, g> vectorised = nax::vmap<i>(f)(dx);
  check_same(nax::cuda::to_host(vectorised), host, 0.0);
}

TEST_CASE("maps on the device: xmap over host devices sharing the GPU") {
  if (no_device()) return;
  auto x = random_array<float, i, j>({4, 4});
  nax::Mesh<data> two(nax::host::devices(2), {2});
  nax::Mesh<data> four(nax::host::devices(4), {4});
  auto on_device = nax::cuda::to_device(x);
  // i split over 2 devices (2 members each, vectorised) and over 4 (one each).
  check_outputs(nax::xmap<nax::bind<i, data>>(every_collective, two)(on_device),
                nax::xmap<nax::bind<i, data>>(every_collective, two)(x));
  check_outputs(nax::xmap<nax::bind<i, data>>(every_collective, four)(on_device),
                nax::xmap<nax::bind<i, data>>(every_collective, four)(x));
}

TEST_CASE("maps on the device: grad through psum_scatter of a replicated value, over host devices") {
  if (no_device()) return;
  // The scatter rule's cotangent is summed over the devices through the program's memory
  // space (Space::sum_over_members): device memory here, staged through the host for the
  // host mesh's communicator, which must never be handed the device pointer itself.
  NAX_AXIS(k);
  auto x = random_array<float, i, k>({4, 3});
  auto p = random_array<float, j, k>({4, 3});
  nax::Mesh<data> four(nax::host::devices(4), {4});
  auto f = [](const auto& v, const auto& p0) {
    return nax::grad([&](const auto& q) { return nax::psum<i>(nax::sum(nax::psum_scatter<i, j>(q) * v)); })(p0);
  };
  nax::Array<float, j, k> on_host = nax::xmap<nax::bind<i, data>>(f, four)(x, p);
  nax::cuda::Array<float, j, k> on_device =
      nax::xmap<nax::bind<i, data>>(f, four)(nax::cuda::to_device(x), nax::cuda::to_device(p));
  // Member m keeps 4 p[m, :] of the psum, so d/dp[m, :] of the summed loss is 4 x[m, :].
  for (nax::index_t m = 0; m < 4; ++m)
    for (nax::index_t c = 0; c < 3; ++c) CHECK(on_host(m, c) == doctest::Approx(4.f * x(m, c)));
  check_same(nax::cuda::to_host(on_device), on_host);
}

TEST_CASE("maps on the device: xmap over the CUDA devices") {
  if (no_device()) return;
  const int n = nax::cuda::device_count();
  auto x = random_array<float, i, j>({2 * n, random_extent()});
  auto f = [](const auto& v) { return nax::tuple(nax::psum<i>(v * 2.f), nax::all_gather<i, g>(v)); };
  nax::Mesh<data> gpus(nax::cuda::devices(), {n});
  nax::Mesh<data> hosts(nax::host::devices(n), {n});
  auto [d0, d1] = nax::xmap<nax::bind<i, data>>(f, gpus)(nax::cuda::to_device(x));
  auto [h0, h1] = nax::xmap<nax::bind<i, data>>(f, hosts)(x);
  check_same(nax::cuda::to_host(d0), nax::eval(h0));
  check_same(nax::cuda::to_host(d1), nax::eval(h1));
}

TEST_CASE("maps on the device: device_put of device arrays makes device shards, read in place by xmap") {
  if (no_device()) return;
  const int n = nax::cuda::device_count();
  auto x = random_array<float, i, j>({4 * n, random_extent()});
  auto f = [](const auto& v) { return nax::psum<i>(v * 2.f); };
  const auto want = nax::eval(nax::xmap<nax::bind<i, data>>(f, nax::Mesh<data>(nax::host::devices(2), {2}))(x));
  auto dx = nax::cuda::to_device(x);
  nax::Mesh<data> hosts(nax::host::devices(2), {2});
  nax::Mesh<data> gpus(nax::cuda::devices(), {n});
  for (const nax::Mesh<data>* mesh : {&hosts, &gpus}) {
    const bool on_gpus = mesh == &gpus;
    const std::string which = on_gpus ? "mesh over the CUDA devices" : "mesh of 2 host devices sharing the GPU";
    INFO(which);
    // An array (its view narrowed to each shard before any copy) and an expression.
    auto placed = on_gpus ? nax::device_put<nax::shard<i, data>>(*mesh, dx)
                          : nax::device_put<nax::shard<i, data>>(*mesh, dx + 0.f);
    static_assert(std::is_same_v<decltype(placed), nax::cuda::GlobalArray<float, i, j>>);
    for (int d = 0; d < mesh->device_count(); ++d) {
      CHECK(placed.shard_of(d).extents()[0] == 4 * n / mesh->device_count());
      CHECK(placed.shard_of(d).device() == (on_gpus ? d : nax::cuda::current_device()));
    }
    check_same(placed.gather(), x, 0.0);
    // device_put_like of a host array with the axes in another order (load_tree's path): each
    // block copied to the GPU of the shard it replaces.
    auto y = random_array<float, j, i>({x.extents()[1], 4 * n});
    auto placed_y = nax::device_put_like(placed, y);
    for (int d = 0; d < mesh->device_count(); ++d)
      CHECK(placed_y.shard_of(d).device() == placed.shard_of(d).device());
    check_same(placed_y.gather(), nax::Array<float, i, j>(nax::transpose<i, j>(y)), 0.0);
    auto result = nax::xmap<nax::bind<i, data>>(f, *mesh)(placed);
    static_assert(std::is_same_v<decltype(result), nax::cuda::Array<float, j>>);
    check_same(nax::cuda::to_host(result), want);
  }
}
