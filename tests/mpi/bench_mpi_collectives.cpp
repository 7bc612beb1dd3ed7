// MPI counterpart of bench/collectives.cpp: ppermute (a ring), all_to_all and psum_scatter
// over a mesh axis of MPI ranks (one device each), 64 MiB of float per member by default.
// For each: milliseconds of nax's collective inside xmap, of nax's MPI communicator call alone
// (the transport nax uses, argument-agreement check included), and of raw MPI's same call on
// MPI_COMM_WORLD (MPI_Sendrecv, MPI_Alltoall, MPI_Reduce_scatter_block), each the best of
// `repeats`, the slowest rank's time; GB/s are one member's bytes over that time (algorithm
// bandwidth); the bytes each collective asked the transport to deliver to rank 0
// (nax::traffic_meter) against the algorithmic minimum.
//   mpirun --allow-run-as-root --oversubscribe -np 4 build/host/tests/mpi/bench_mpi_collectives [MiB=64] [repeats=5]
// The xmap row also includes what xmap does over processes besides the collective: every
// rank holds the whole argument, evaluates its part into the send buffer, writes its shard of
// the result, and the ranks' shards are combined by an all-reduce of the whole result
// (counted separately below the table).
#include <nax/mpi.hpp>
#include <nax/nax.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

NAX_AXIS(batch);
NAX_AXIS(s);
NAX_AXIS(c);
NAX_AXIS(f);
NAX_AXIS(data);

int main(int argc, char** argv) {
  nax::mpi::environment environment(argc, argv);
  const nax::index_t mib = argc > 1 ? std::atoll(argv[1]) : 64;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int n = nax::mpi::world_size();
  const int me = nax::mpi::world_rank();
  const nax::index_t floats = mib * 1048576 / 4;  // per member
  nax::traffic_meter meter(nax::mpi::world());
  nax::Mesh<data> mesh(meter.devices(), {n});
  auto& comm = mesh.comm<data>(me);
  std::vector<std::pair<int, int>> ring;
  for (int m = 0; m < n; ++m) ring.push_back({m, (m + 1) % n});

  // The slowest rank's seconds, best of `repeats`.
  auto best_ms = [&](auto call) {
    double best = 1e30;
    for (int r = 0; r < repeats + 1; ++r) {  // the first is a warm-up
      MPI_Barrier(MPI_COMM_WORLD);
      const auto start = std::chrono::steady_clock::now();
      call();
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r > 0) best = std::min(best, seconds);
    }
    return best * 1e3;
  };

  nax::Array<float, batch, f> x = nax::random::uniform<float, batch, f>(nax::random::key(1), {n, floats});
  nax::Array<float, batch, s, f> xa =
      nax::random::uniform<float, batch, s, f>(nax::random::key(2), {n, n, floats / n});
  // One xmap: its time, what rank 0 was asked to receive through the collective's own kind,
  // and through the all-reduce that combines the ranks' shards.
  struct xmap_row {
    double ms;
    std::uint64_t collective_bytes, combine_bytes;
  };
  auto measure = [&](auto fn, const auto& arg, auto kind) {
    auto run = [&] { (void)nax::xmap<nax::bind<batch, data>>(fn, mesh)(arg); };
    const double ms = best_ms(run);
    meter.reset();
    run();
    const nax::traffic_record record = meter.of(me);
    return xmap_row{ms, kind(record).bytes, record.all_reduce.bytes};
  };

  std::vector<float> send(static_cast<std::size_t>(floats), 1.f), recv(static_cast<std::size_t>(floats));
  const int block = static_cast<int>(floats / n);
  const double member_bytes = double(floats) * 4;
  const std::uint64_t share = std::uint64_t(member_bytes) / std::uint64_t(n) * std::uint64_t(n - 1);
  auto gbs = [&](double ms) { return member_bytes / ms / 1e6; };
  if (me == 0) {
    std::printf("%d MPI ranks, %lld MiB of float per member, best of %d (slowest rank)\n", n,
                static_cast<long long>(mib), repeats);
    std::printf("| collective   | nax xmap ms | nax comm ms | raw MPI ms | comm GB/s | raw GB/s | comm / raw | "
                "MiB to rank 0 | minimum MiB |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  std::vector<std::pair<const char*, std::uint64_t>> combines;
  auto report = [&](const char* name, const xmap_row& r, double comm_ms, double raw_ms, std::uint64_t minimum) {
    combines.push_back({name, r.combine_bytes});
    if (me == 0)
      std::printf("| %-12s | %11.1f | %11.1f | %10.1f | %9.2f | %8.2f | %9.2fx | %13.1f | %11.1f |\n", name, r.ms,
                  comm_ms, raw_ms, gbs(comm_ms), gbs(raw_ms), raw_ms / comm_ms, r.collective_bytes / 1048576.0,
                  minimum / 1048576.0);
  };

  {
    auto r = measure([&](const auto& v) { return nax::ppermute<batch>(v, ring); }, x,
                     [](const nax::traffic_record& t) { return t.permute; });
    const double comm_ms = best_ms([&] { comm.permute(send.data(), recv.data(), floats, ring); });
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    const double raw_ms = best_ms([&] {
      MPI_Sendrecv(send.data(), static_cast<int>(floats), MPI_FLOAT, to, 0, recv.data(), static_cast<int>(floats),
                   MPI_FLOAT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    });
    report("ppermute", r, comm_ms, raw_ms, std::uint64_t(member_bytes));
  }
  {
    auto r = measure([](const auto& v) { return nax::all_to_all<batch, s, c>(v); }, xa,
                     [](const nax::traffic_record& t) { return t.all_to_all; });
    const double comm_ms = best_ms([&] { comm.all_to_all(send.data(), recv.data(), block); });
    const double raw_ms = best_ms([&] {
      MPI_Alltoall(send.data(), block, MPI_FLOAT, recv.data(), block, MPI_FLOAT, MPI_COMM_WORLD);
    });
    report("all_to_all", r, comm_ms, raw_ms, share);
  }
  {
    auto r = measure([](const auto& v) { return nax::psum_scatter<batch, s>(v); }, xa,
                     [](const nax::traffic_record& t) { return t.reduce_scatter; });
    const double comm_ms = best_ms([&] { comm.reduce_scatter(send.data(), recv.data(), block); });
    const double raw_ms = best_ms([&] {
      MPI_Reduce_scatter_block(send.data(), recv.data(), block, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
    report("psum_scatter", r, comm_ms, raw_ms, share);
  }
  if (me == 0)
    for (auto [name, bytes] : combines)
      std::printf("%s: xmap's combine of the ranks' shards asked rank 0 for %.1f MiB more (all_reduce)\n", name,
                  bytes / 1048576.0);
  return 0;
}
