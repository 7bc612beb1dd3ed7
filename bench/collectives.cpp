// ppermute (a ring), all_to_all and psum_scatter over a mesh axis of host devices, 64 MiB of
// float per member by default: the milliseconds of nax's collective inside xmap, of the
// composition nax used before (every member's value all-gathered, or a full all-reduce,
// then this device's part kept: tests/support/gather_everything.hpp), and of the bare
// communicator call on the same buffers (the transport's own speed), with the bytes each
// device was asked to move (nax::traffic_meter) against the algorithmic minimum.
//   build/host/bench/bench_collectives [devices=4] [MiB per member=64]
// The xmap rows include writing each device's shard of the result (one pass over it) and
// evaluating the operand into the send buffer; the bare call includes neither.
#include <nax/nax.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "../tests/support/gather_everything.hpp"
#include "support.hpp"

NAX_AXIS(batch);
NAX_AXIS(s);
NAX_AXIS(c);
NAX_AXIS(f);
NAX_AXIS(data);

namespace {

struct row {
  const char* name;
  double nax_ms, before_ms, bare_ms;
  std::uint64_t nax_bytes, before_bytes, minimum_bytes;
};

void print(const row& r, double member_bytes) {
  std::printf("| %-12s | %8.1f | %6.2f | %8.1f | %8.1f | %5.2fx | %9.1f | %9.1f | %9.1f |\n", r.name, r.nax_ms,
              member_bytes / r.nax_ms / 1e6, r.before_ms, r.bare_ms, r.before_ms / r.nax_ms, r.nax_bytes / 1048576.0,
              r.before_bytes / 1048576.0, r.minimum_bytes / 1048576.0);
}

}  // namespace

int main(int argc, char** argv) {
  const int devices = argc > 1 ? std::atoi(argv[1]) : 4;
  const nax::index_t mib = argc > 2 ? std::atoll(argv[2]) : 64;
  const nax::index_t floats = mib * 1048576 / 4;  // per member
  nax::traffic_meter meter(nax::host::devices(devices));
  nax::Mesh<data> mesh(meter.devices(), {devices});
  std::vector<std::pair<int, int>> ring;
  for (int m = 0; m < devices; ++m) ring.push_back({m, (m + 1) % devices});

  nax::Array<float, batch, f> x = nax::random::uniform<float, batch, f>(nax::random::key(1), {devices, floats});
  auto xs = nax::random::uniform<float, batch, s, f>(nax::random::key(2), {devices, devices, floats / devices});
  nax::Array<float, batch, s, f> xa = xs;

  // Seconds of one xmap of fn over arg, and the bytes device 0 was asked to move in it.
  auto measure = [&](auto fn, const auto& arg) {
    auto run = [&] { (void)nax::xmap<nax::bind<batch, data>>(fn, mesh)(arg); };
    run();
    meter.reset();
    run();
    const std::uint64_t bytes = meter.of(0).bytes();
    return std::pair{nax_bench::median_seconds(run, 0.5) * 1e3, bytes};
  };
  // The bare communicator call on buffers of the same sizes.
  std::vector<std::vector<float>> send(static_cast<std::size_t>(devices), std::vector<float>(std::size_t(floats), 1.f));
  std::vector<std::vector<float>> recv(static_cast<std::size_t>(devices), std::vector<float>(std::size_t(floats)));
  auto bare = [&](auto call) {
    return nax_bench::median_seconds([&] {
             mesh.run([&](auto& device) {
               const auto d = static_cast<std::size_t>(device.position());
               call(device.template comm<data>(), send[d].data(), recv[d].data());
             });
           }, 0.5) * 1e3;
  };

  const double member_bytes = double(floats) * 4;
  const std::uint64_t share = std::uint64_t(member_bytes) / std::uint64_t(devices) * std::uint64_t(devices - 1);
  std::printf("%d host devices, %lld MiB of float per member (nax: OMP threads %s)\n", devices,
              static_cast<long long>(mib), std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "default");
  std::printf("| collective   | nax ms   | GB/s   | before ms | bare call ms | speed-up | nax MiB moved | before MiB | minimum MiB |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");

  {
    auto [t, b] = measure([&](const auto& v) { return nax::ppermute<batch>(v, ring); }, x);
    auto [t0, b0] = measure([&](const auto& v) { return gather_everything::ppermute<batch>(v, ring); }, x);
    double tb = bare([&](auto& comm, float* in, float* out) { comm.permute(in, out, floats, ring); });
    print({"ppermute", t, t0, tb, b, b0, std::uint64_t(member_bytes)}, member_bytes);
  }
  {
    auto [t, b] = measure([](const auto& v) { return nax::all_to_all<batch, s, c>(v); }, xa);
    auto [t0, b0] = measure([](const auto& v) { return gather_everything::all_to_all<batch, s, c>(v); }, xa);
    double tb = bare([&](auto& comm, float* in, float* out) { comm.all_to_all(in, out, floats / devices); });
    print({"all_to_all", t, t0, tb, b, b0, share}, member_bytes);
  }
  {
    auto [t, b] = measure([](const auto& v) { return nax::psum_scatter<batch, s>(v); }, xa);
    auto [t0, b0] = measure([](const auto& v) { return gather_everything::psum_scatter<batch, s>(v); }, xa);
    double tb = bare([&](auto& comm, float* in, float* out) { comm.reduce_scatter(in, out, floats / devices); });
    print({"psum_scatter", t, t0, tb, b, b0, share}, member_bytes);
  }
  return 0;
}
