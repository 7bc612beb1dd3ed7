// GPU benchmarks of nax's CUDA backend (run by bench/gpu/run.sh on a GPU machine):
//   fused    a*b + c*d - e over 2^28 floats, GB/s, against a device-to-device cudaMemcpy
//   sum_j    sum over the contiguous axis of a 16384 x 16384 float array, GB/s, against the copy
//   sum_i    sum over the outer axis of the same array, GB/s, against the copy
//   dot      8192^3 float contraction, TFLOP/s, against calling cublasSgemm directly
//   pi       Monte Carlo pi from 10^9 threefry uniform pairs (nax::random on the device), Gsamples/s
//   train_linear  the JAX program's training step (value_and_grad, then the update) of dot(x, w) + b,
//            squared loss, batch 4096, 3 features, 1 output, on the device, steps/s
//   train_mlp     the same step of a two-layer MLP tanh(x w1 + b1) w2 + b2, batch 4096, width
//            1024, 16 outputs (bench/train_step.cpp's models), steps/s
// Bytes count what the expression names (4 per element read or written). Each case: one
// warm-up, then the median of --reps timed runs (cudaEvents on nax's stream).
// Output: a human-readable line per case, and machine-readable lines
//   RESULT <case> <nax value> <unit> <baseline name> <baseline value> <target ratio>
// that run.sh turns into the final table. --small runs tiny sizes (a smoke test).
#include <nax/cuda.hpp>

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {
NAX_AXIS(n);
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(sample);
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);
NAX_AXIS(out);
namespace nr = nax::random;
using nax::index_t;

int reps = 10;

// Median milliseconds of fn over reps runs (after one warm-up), on nax's stream.
double time_ms(const std::function<void()>& fn) {
  cudaStream_t s = nax::cuda::stream();
  cudaEvent_t start, stop;
  NAX_CUDA_CHECK(cudaEventCreate(&start));
  NAX_CUDA_CHECK(cudaEventCreate(&stop));
  fn();
  nax::cuda::synchronize();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    NAX_CUDA_CHECK(cudaEventRecord(start, s));
    fn();
    NAX_CUDA_CHECK(cudaEventRecord(stop, s));
    NAX_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    NAX_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  NAX_CUDA_CHECK(cudaEventDestroy(start));
  NAX_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void result(const char* name, double value, const char* unit, const char* baseline, double baseline_value,
            double target) {
  std::printf("%-8s nax %10.2f %-9s %-16s %10.2f  ratio %.3f (target >= %.2f)\n", name, value, unit, baseline,
              baseline_value, baseline_value > 0 ? value / baseline_value : 0.0, target);
  std::printf("RESULT %s %.4f %s %s %.4f %.2f\n", name, value, unit, baseline, baseline_value, target);
  std::fflush(stdout);
}

template <class T, class... As>
nax::cuda::Array<T, As...> filled(std::array<index_t, sizeof...(As)> extents, T value) {
  nax::cuda::Array<T, As...> a(extents);
  a = a + value;
  return a;
}

double copy_gbps(index_t count) {
  nax::cuda::Array<float, n> a({count}), b({count});
  const double ms = time_ms([&] {
    NAX_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), static_cast<std::size_t>(count) * sizeof(float),
                                   cudaMemcpyDeviceToDevice, nax::cuda::stream()));
  });
  return 2.0 * 4.0 * static_cast<double>(count) / (ms * 1e6);
}

void bench_fused(index_t count, double copy) {
  auto a = filled<float, n>({count}, 1.f), b = filled<float, n>({count}, 2.f), c = filled<float, n>({count}, 3.f);
  auto d = filled<float, n>({count}, 4.f), e = filled<float, n>({count}, 5.f);
  nax::cuda::Array<float, n> out({count});
  const double ms = time_ms([&] { out = a * b + c * d - e; });
  const float check = nax::cuda::to_host(nax::slice<n>(out, 0, 1))(0);
  if (check != 9.f) std::printf("fused: wrong value %f\n", static_cast<double>(check));
  result("fused", 24.0 * static_cast<double>(count) / (ms * 1e6), "GB/s", "memcpy_d2d", copy, 0.90);
}

void bench_sum(index_t side, double copy) {
  auto x = filled<float, i, j>({side, side}, 1.f);
  nax::cuda::Array<float, i> rows({side});
  nax::cuda::Array<float, j> cols({side});
  const double bytes = 4.0 * static_cast<double>(side) * static_cast<double>(side);
  const double ms_j = time_ms([&] { rows = nax::sum<j>(x); });
  result("sum_j", bytes / (ms_j * 1e6), "GB/s", "memcpy_d2d", copy, 0.80);
  const double ms_i = time_ms([&] { cols = nax::sum<i>(x); });
  result("sum_i", bytes / (ms_i * 1e6), "GB/s", "memcpy_d2d", copy, 0.80);
  const float check = nax::cuda::to_host(nax::slice<i>(rows, 0, 1))(0);
  if (check != static_cast<float>(side)) std::printf("sum: wrong value %f\n", static_cast<double>(check));
}

void bench_dot(index_t size) {
  auto a = filled<float, i, k>({size, size}, 0.5f);
  auto b = filled<float, k, j>({size, size}, 0.25f);
  nax::cuda::Array<float, i, j> c({size, size});
  const double flops = 2.0 * std::pow(static_cast<double>(size), 3);
  const double ms = time_ms([&] { c = nax::dot<k>(a, b); });
  // cuBLAS directly: row-major C = A B as column-major C^T = B^T A^T.
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw nax::device_error("cublasCreate failed");
  cublasSetStream(handle, nax::cuda::stream());
  const float alpha = 1.f, beta = 0.f;
  const int m = static_cast<int>(size);
  const double ms_blas = time_ms([&] {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, b.data(), m, a.data(), m, &beta, c.data(), m);
  });
  cublasDestroy(handle);
  result("dot", flops / (ms * 1e9), "TFLOP/s", "cublasSgemm", flops / (ms_blas * 1e9), 0.95);
}

void bench_pi(index_t samples) {
  auto [kx, ky] = nr::split(nr::key(1768780800062));
  nax::cuda::Array<double> pi({});
  const double ms = time_ms([&] {
    auto x = nr::uniform<sample>(kx, {samples});
    auto y = nr::uniform<sample>(ky, {samples});
    pi = 4.0 * nax::mean(nax::square(x) + nax::square(y) <= 1.0f);
  });
  const double value = nax::cuda::item(pi);
  std::printf("pi: %.6f from %lld samples\n", value, static_cast<long long>(samples));
  result("pi", static_cast<double>(samples) / (ms * 1e6), "Gsample/s", "-", 0.0, 0.0);
}

// The host benchmark's deterministic fill (bench/train_step.cpp), copied to the device.
template <class... As>
nax::cuda::Array<float, As...> wave(std::array<index_t, sizeof...(As)> extents, float scale, float phase) {
  nax::Array<float, As...> h(extents);
  for (index_t q = 0; q < h.size(); ++q) h.data()[q] = scale * std::sin(phase + 0.37f * static_cast<float>(q));
  return nax::cuda::to_device(h);
}

void bench_train_linear(index_t batch_size) {
  auto x = wave<batch, in>({batch_size, 3}, 1.f, 0.f);
  auto y = wave<batch, out>({batch_size, 1}, 1.f, 1.f);
  auto w = wave<in, out>({3, 1}, 0.5f, 2.f);
  nax::cuda::Array<float, out> b({1});
  auto loss_fn = [](const auto& params, const auto& xs, const auto& ys) {
    return nax::mean(nax::square(nax::dot<in>(xs, std::get<0>(params)) + std::get<1>(params) - ys));
  };
  nax::cuda::Array<float> loss;
  const double ms = time_ms([&] {
    auto [value, g] = nax::value_and_grad(loss_fn)(std::tie(w, b), x, y);
    w = w - 0.01f * std::get<0>(g);
    b = b - 0.01f * std::get<1>(g);
    loss = std::move(value);
  });
  std::printf("train_linear: loss %.6f\n", static_cast<double>(loss.item()));
  result("train_linear", 1e3 / ms, "steps/s", "-", 0.0, 0.0);
}

void bench_train_mlp(index_t batch_size) {
  const index_t n_in = 1024, n_hidden = 1024, n_out = 16;
  auto x = wave<batch, in>({batch_size, n_in}, 1.f, 0.f);
  auto y = wave<batch, out>({batch_size, n_out}, 1.f, 1.f);
  auto w1 = wave<in, hidden>({n_in, n_hidden}, 0.03f, 2.f);
  nax::cuda::Array<float, hidden> b1({n_hidden});
  auto w2 = wave<hidden, out>({n_hidden, n_out}, 0.03f, 3.f);
  nax::cuda::Array<float, out> b2({n_out});
  auto loss_fn = [](const auto& q, const auto& xs, const auto& ys) {
    auto h = nax::tanh(nax::dot<in>(xs, std::get<0>(q)) + std::get<1>(q));
    return nax::mean(nax::square(nax::dot<hidden>(h, std::get<2>(q)) + std::get<3>(q) - ys));
  };
  nax::cuda::Array<float> loss;
  const double ms = time_ms([&] {
    auto [value, g] = nax::value_and_grad(loss_fn)(std::tie(w1, b1, w2, b2), x, y);
    w1 = w1 - 0.01f * std::get<0>(g);
    b1 = b1 - 0.01f * std::get<1>(g);
    w2 = w2 - 0.01f * std::get<2>(g);
    b2 = b2 - 0.01f * std::get<3>(g);
    loss = std::move(value);
  });
  std::printf("train_mlp: loss %.6f\n", static_cast<double>(loss.item()));
  result("train_mlp", 1e3 / ms, "steps/s", "-", 0.0, 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  bool small = false;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--small") == 0) small = true;
    else if (std::strncmp(argv[a], "--reps=", 7) == 0) reps = std::max(1, std::atoi(argv[a] + 7));
  }
  if (!nax::cuda::has_device()) {
    std::puts("GPU benchmarks skipped: no CUDA device");
    return 0;
  }
  cudaDeviceProp prop{};
  NAX_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount,
              static_cast<double>(prop.totalGlobalMem) / (1 << 30));
  const index_t count = small ? (index_t{1} << 20) : (index_t{1} << 28);
  const double copy = copy_gbps(count);
  std::printf("memcpy_d2d %.2f GB/s\n", copy);
  bench_fused(count, copy);
  bench_sum(small ? 1024 : 16384, copy);
  bench_dot(small ? 512 : 8192);
  bench_pi(small ? 1000000 : 1000000000);
  bench_train_linear(small ? 256 : 4096);
  bench_train_mlp(small ? 256 : 4096);
  return 0;
}
