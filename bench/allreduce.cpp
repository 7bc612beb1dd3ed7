// Host-device collectives: algorithm bandwidth (bytes of one member's buffer / time) of a float
// all-reduce over n emulated devices in this process (nax::host::devices(n), one thread each,
// shared memory), from 4 KiB to 64 MiB per device; the call latency of a tiny all-reduce; and
// the cost of Mesh::run itself. The GB/s column is 1e9 bytes per second.
//   build/host/bench/bench_allreduce                       (all)
//   build/host/bench/bench_allreduce --benchmark_filter='all_reduce/4/67108864'
// The reference row does the same memory traffic (read n buffers, write n) on one thread.
// MPI ranks instead of threads: tests/mpi/bench_mpi_allreduce.cpp,
//   mpirun --allow-run-as-root --oversubscribe -np 4 build/host/tests/mpi/bench_mpi_allreduce
#include <nax/mesh/mesh.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

NAX_AXIS(devices);

namespace {

struct host_setup {
  nax::Mesh<devices> mesh;
  std::vector<std::vector<float>> buffers;
  host_setup(int n, std::size_t floats)
      : mesh(nax::host::devices(n), {n}), buffers(static_cast<std::size_t>(n)) {
    // Each device touches its own buffer first, as a real device's memory would be its own.
    mesh.run([&](auto& device) {
      buffers[static_cast<std::size_t>(device.position())].assign(floats, 0.f);
    });
  }
};

void set_bandwidth(benchmark::State& state, double bytes_per_iteration) {
  state.counters["GB/s"] = benchmark::Counter(bytes_per_iteration * static_cast<double>(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}

// One Mesh::run per iteration, one all_reduce inside.
void all_reduce(benchmark::State& state) {
  int const n = static_cast<int>(state.range(0));
  std::size_t const bytes = static_cast<std::size_t>(state.range(1));
  host_setup setup(n, bytes / sizeof(float));
  for (auto _ : state) {
    setup.mesh.run([&](auto& device) {
      device.template comm<devices>().all_reduce(setup.buffers[static_cast<std::size_t>(device.position())]);
    });
  }
  set_bandwidth(state, static_cast<double>(bytes));
}
BENCHMARK(all_reduce)
    ->ArgsProduct({{2, 4, 8}, {4 << 10, 1 << 20, 16 << 20, 64 << 20}})
    ->ArgNames({"devices", "bytes"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// 100 all_reduces of 4 bytes inside one run: the latency of a call (two barriers).
void all_reduce_latency(benchmark::State& state) {
  int const n = static_cast<int>(state.range(0));
  host_setup setup(n, 1);
  for (auto _ : state) {
    setup.mesh.run([&](auto& device) {
      auto& comm = device.template comm<devices>();
      auto& buffer = setup.buffers[static_cast<std::size_t>(device.position())];
      for (int call = 0; call < 100; ++call) comm.all_reduce(buffer);
    });
  }
  // Seconds per call (printed with an SI prefix: 5u = 5 microseconds).
  state.counters["s/call"] = benchmark::Counter(100.0 * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(all_reduce_latency)->Arg(2)->Arg(4)->Arg(8)->ArgName("devices")->UseRealTime()->Unit(benchmark::kMicrosecond);

// Mesh::run with an empty function: dispatch to the device threads and back.
void run_overhead(benchmark::State& state) {
  int const n = static_cast<int>(state.range(0));
  nax::Mesh<devices> mesh(nax::host::devices(n), {n});
  for (auto _ : state) mesh.run([](auto&) {});
}
BENCHMARK(run_overhead)->Arg(1)->Arg(4)->Arg(8)->ArgName("devices")->UseRealTime()->Unit(benchmark::kMicrosecond);

// The all-reduce's memory traffic on one thread: sum n buffers, write the sum back to all n.
void reference_one_thread(benchmark::State& state) {
  int const n = static_cast<int>(state.range(0));
  std::size_t const floats = static_cast<std::size_t>(state.range(1)) / sizeof(float);
  std::vector<std::vector<float>> buffers(static_cast<std::size_t>(n), std::vector<float>(floats, 0.f));
  constexpr std::size_t chunk = 4096;
  std::vector<float> staging(chunk);
  for (auto _ : state) {
    for (std::size_t offset = 0; offset < floats; offset += chunk) {
      std::size_t length = std::min(chunk, floats - offset);
      std::memcpy(staging.data(), buffers[0].data() + offset, length * sizeof(float));
      for (std::size_t j = 1; j < buffers.size(); ++j)
        for (std::size_t i = 0; i < length; ++i) staging[i] += buffers[j][offset + i];
      for (auto& buffer : buffers) std::memcpy(buffer.data() + offset, staging.data(), length * sizeof(float));
    }
    benchmark::DoNotOptimize(buffers[0].data());
  }
  set_bandwidth(state, static_cast<double>(floats * sizeof(float)));
}
BENCHMARK(reference_one_thread)
    ->Args({4, 64 << 20})
    ->ArgNames({"devices", "bytes"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
