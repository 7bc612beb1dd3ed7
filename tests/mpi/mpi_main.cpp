// The doctest main of test_mpi: MPI is initialised around the test run, every rank runs the
// same test cases in the same order (they are collective), rank 0 reports in full and the
// others only their failures, and the exit code is nonzero when any rank failed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <nax/mpi.hpp>

int main(int argc, char** argv) {
  nax::mpi::environment environment(argc, argv);
  doctest::Context context(argc, argv);
  if (nax::mpi::world_rank() != 0) context.setOption("minimal", true);
  int failed = context.run() != 0 ? 1 : 0;
  if (context.shouldExit()) return failed;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
