// The first JAX program nax reproduces: data parallelism with pmap. A linear model dot(x, w) + b with a
// squared loss, trained for 10 steps on 4 host devices; each device holds 32 examples,
// computes its loss and gradients with value_and_grad, and the gradients are averaged over
// the devices with pmean (jax.lax.pmean(grads, 'batch')) before the update. Prints the mean
// loss of every step; exits non-zero unless the loss falls.
// --cuda: the same program over nax::cuda arrays (the CUDA build, train_pmap_cuda): each
// device's step runs on a GPU, over 4 GPUs with NCCL when there are 4, else over 4 host
// devices that share the current GPU. It also runs on the host and exits non-zero unless
// every step's loss agrees. Without a GPU it says so and exits 0.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <nax/nax.hpp>
#if defined(__CUDACC__)
#include <nax/cuda.hpp>
#include <nax/mesh/nccl_communicator.hpp>
#endif

namespace train_pmap {
NAX_AXIS(device);
NAX_AXIS(example);
NAX_AXIS(in);
NAX_AXIS(out);

constexpr nax::index_t devices = 4, per_device = 32, features = 3, steps = 10;

// The data both train_pmap and train_xmap use: 128 examples, y = x . (2, -1, 0.5) + 0.3 + noise.
template <class Example>
auto make_data() {
  namespace random = nax::random;
  auto [kx, kn] = random::split(random::key(0));
  nax::Array<float, Example, in> x = random::normal<Example, in>(kx, {devices * per_device, features});
  nax::Array<float, in, out> w_true({features, 1}, {2.f, -1.f, 0.5f});
  nax::Array<float, Example, out> y = nax::dot<in>(x, w_true) + 0.3f + 0.1f * random::normal<Example, out>(kn, {devices * per_device, 1});
  return std::make_pair(std::move(x), std::move(y));
}

// The JAX program's model and loss: model(params, x) = dot(x, w) + b; loss = mean((pred - y)^2).
inline auto loss_fn = [](const auto& params, const auto& x, const auto& y) {
  auto pred = nax::dot<in>(x, std::get<0>(params)) + std::get<1>(params);
  return nax::mean(nax::square(pred - y));
};

// The training loop on `mesh`; place(array) puts the data and params where they are computed
// (the host: as they are; the GPU: nax::cuda::to_device).
template <class Place>
std::vector<double> train(bool print, const Place& place, const nax::Mesh<device>& mesh) {
  auto [x_all, y_all] = make_data<example>();
  // (device, example, ...): the JAX program's x.reshape(4, 32, 3).
  auto x = place(nax::Array<float, device, example, in>(nax::split<example, device, example>(x_all, per_device)));
  auto y = place(nax::Array<float, device, example, out>(nax::split<example, device, example>(y_all, per_device)));
  auto params = nax::tuple(place(nax::ones<float, in, out>(features, 1)), place(nax::zeros<float, out>(1)));

  auto train_step = nax::pmap<device>([](const auto& p, const auto& xs, const auto& ys) {
    auto [loss, grads] = nax::value_and_grad(loss_fn)(p, xs, ys);
    auto mean_grads = nax::tree_map([](const auto& g) { return nax::pmean<device>(g); }, grads);
    auto updated = nax::tree_map([](const auto& w, const auto& g) { return w - 0.01f * g; }, p, mean_grads);
    return nax::tuple(updated, loss);
  }, mesh);

  std::vector<double> losses;
  for (nax::index_t step = 0; step < steps; ++step) {
    auto [new_params, loss] = train_step(params, x, y);  // loss: one per device
    params = std::move(new_params);
    losses.push_back(nax::mean(loss).item());
    if (print) std::printf("step %2d  loss %.6f\n", int(step), losses.back());
  }
  return losses;
}

inline std::vector<double> run(bool print) {
  return train(print, [](auto a) { return a; }, nax::Mesh<device>(nax::host::devices(devices), {devices}));
}

// --cuda: 0 when the GPU's losses are the host's (and there is a GPU), 1 when not, 2 without a CUDA build.
inline int run_on_device() {
#if defined(__CUDACC__)
  if (!nax::cuda::has_device()) {
    std::printf("--cuda: no CUDA device found; nothing run on a GPU (without --cuda the example runs on the host)\n");
    return 0;
  }
  const int gpus = nax::cuda::device_count();
  const bool nccl = gpus >= devices;
  std::printf("--cuda: %s\n", nccl ? "4 GPUs, collectives through NCCL"
                                   : "4 host devices sharing the current GPU, collectives through host memory");
  auto on_gpu = train(true, [](const auto& a) { return nax::cuda::to_device(a); },
                      nax::Mesh<device>(nccl ? nax::cuda::devices(devices) : nax::host::devices(devices), {devices}));
  auto on_host = run(false);
  for (std::size_t step = 0; step < on_host.size(); ++step)
    if (!(std::abs(on_gpu[step] - on_host[step]) <= 1e-4 * (1 + std::abs(on_host[step])))) {
      std::printf("step %d: the GPU's loss %.8f differs from the host's %.8f\n", int(step), on_gpu[step], on_host[step]);
      return 1;
    }
  std::printf("every step's loss equals the host's\n");
  return on_gpu.back() < on_gpu.front() ? 0 : 1;
#else
  std::fprintf(stderr, "--cuda: this build has no CUDA backend; run train_pmap_cuda (built when nvcc is found)\n");
  return 2;
#endif
}
}  // namespace train_pmap

#ifndef NAX_EXAMPLE_NO_MAIN
int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--cuda") == 0) return train_pmap::run_on_device();
  auto losses = train_pmap::run(true);
  if (!(losses.back() < losses.front())) {
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}
#endif
