// MPI counterpart of bench/allreduce.cpp: algorithm bandwidth (bytes / time) of a float
// all-reduce over all ranks through nax's MPI communicator, for 4 KiB to 64 MiB.
//   mpirun --allow-run-as-root --oversubscribe -np 4 build/host/tests/mpi/bench_mpi_allreduce [repeats]
// The first column is nax (with its argument-agreement check), the second raw MPI_Allreduce
// on the same communicator, the third nax with the check off.
#include <nax/mpi.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

NAX_AXIS(ranks);

int main(int argc, char** argv) {
  nax::mpi::environment environment(argc, argv);
  int const repeats = argc > 1 ? std::atoi(argv[1]) : 10;
  int const size = nax::mpi::world_size();
  nax::Mesh<ranks> mesh(nax::mpi::world(), {size});
  int const me = nax::mpi::world_rank();
  auto& comm = static_cast<nax::detail::mpi_communicator&>(mesh.comm<ranks>(me));
  if (me == 0)
    std::printf("%d ranks, best of %d: algorithm bandwidth in GB/s (nax | raw MPI | nax unchecked)\n",
                size, repeats);
  for (std::size_t bytes : {std::size_t{4} << 10, std::size_t{1} << 20, std::size_t{16} << 20,
                            std::size_t{64} << 20}) {
    std::vector<float> data(bytes / sizeof(float), 1.f);
    auto best_of = [&](auto call) {
      double best = 1e30;
      for (int r = 0; r < repeats; ++r) {
        MPI_Barrier(comm.native());
        auto start = std::chrono::steady_clock::now();
        call();
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm.native());
        best = std::min(best, seconds);
      }
      return static_cast<double>(bytes) / best / 1e9;
    };
    double checked = best_of([&] { comm.all_reduce(data); });
    double raw = best_of([&] {
      MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), MPI_FLOAT, MPI_SUM,
                    comm.native());
    });
    comm.set_agreement_checks(false);
    double unchecked = best_of([&] { comm.all_reduce(data); });
    comm.set_agreement_checks(true);
    if (me == 0)
      std::printf("%10zu bytes: %8.3f | %8.3f | %8.3f\n", bytes, checked, raw, unchecked);
  }
}
