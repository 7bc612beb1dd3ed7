// Why a mesh of one host device runs on the calling thread (mesh/thread_pool.hpp,
// docs/toolchain.md "libgomp stops spinning ..."): a training step's shape, 200 fused passes of
// 2^16 floats (each one OpenMP region) on the device, then 5 on the main thread (the optimizer),
// run three ways, in ms per step and voluntary context switches per region (a thread that went
// to sleep and had to be woken):
//   1-device Mesh::run   the device's passes through a nax::Mesh of one host device (now: the caller)
//   own device thread    the same passes on a persistent std::thread, the arrangement before:
//                        its OpenMP team and the main thread's make libgomp count 3 threads on
//                        2 cores, and it then sleeps between regions instead of spinning
//   main thread only     no mesh at all
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true build/host/bench/bench_openmp_teams
#include <nax/nax.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

NAX_AXIS(row);
NAX_AXIS(col);

namespace {
using Floats = nax::Array<float, row, col>;

void passes(Floats& a, Floats& b, int count) {
  for (int k = 0; k < count; ++k) b = a * 0.5f + b;  // 2^16 elements: above the parallel threshold
}

long voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nvcsw;
}

template <class Step>
void report(const char* name, Step&& step) {
  constexpr int steps = 40, device_passes = 200, main_passes = 5;
  step(device_passes, main_passes);  // warm-up: threads and teams exist
  const long switches = voluntary_switches();
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) step(device_passes, main_passes);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-22s %10.2f ms per step %10.2f switches per region\n", name, ms / steps,
              double(voluntary_switches() - switches) / (steps * (device_passes + main_passes)));
}
}  // namespace

int main() {
  Floats a({256, 256}), b({256, 256});
  std::fill(a.data(), a.data() + a.size(), 1.0f);
  std::fill(b.data(), b.data() + b.size(), 0.0f);

  nax::Mesh<row> mesh(nax::host::devices(1), {1});
  report("1-device Mesh::run", [&](int on_device, int on_main) {
    mesh.run([&](auto&) { passes(a, b, on_device); });
    passes(a, b, on_main);
  });

  std::atomic<int> round{0}, done{0};
  int work = 0;
  std::thread device([&] {
    for (int seen = 0;;) {
      int r;
      while ((r = round.load()) == seen) round.wait(seen);
      if (r < 0) return;
      seen = r;
      passes(a, b, work);
      done.store(r);
      done.notify_all();
    }
  });
  int rounds = 0;
  report("own device thread", [&](int on_device, int on_main) {
    work = on_device;
    round.store(++rounds);
    round.notify_all();
    for (int d; (d = done.load()) != rounds;) done.wait(d);
    passes(a, b, on_main);
  });
  round.store(-1);
  round.notify_all();
  device.join();

  report("main thread only", [&](int on_device, int on_main) { passes(a, b, on_device + on_main); });
  std::printf("(b[0] = %g)\n", double(b.data()[0]));
}
