// Checkpoints of GlobalArrays whose mesh spans MPI ranks: save_tree is collective (every rank
// gathers each leaf, the rank holding mesh device 0 writes the file, all agree on whether it
// was written), load_tree places the file's arrays on any mesh of ranks. The ranks share /tmp
// (one machine), as ranks of several hosts must share the checkpoint's filesystem.
#include <nax/io.hpp>
#include <nax/mpi.hpp>
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include <unistd.h>

namespace checkpoint_mpi {

NAX_AXIS(rows);
NAX_AXIS(cols);
NAX_AXIS(batch);
NAX_AXIS(in);

using nax::index_t;
namespace fs = std::filesystem;

template <class T, class... As>
nax::Array<T, As...> filled(std::array<index_t, sizeof...(As)> extents, double scale) {
  nax::Array<T, As...> a(extents);
  for (index_t i = 0; i < a.size(); ++i) a.data()[i] = T(std::sin(scale * double(i + 1)));
  return a;
}

// A folder every rank names alike (rank 0's process id), removed by rank 0 at the end.
struct shared_scratch {
  fs::path dir;
  shared_scratch() {
    long id = ::getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    dir = fs::temp_directory_path() / ("nax_mpi_checkpoint_" + std::to_string(id));
    if (nax::mpi::world_rank() == 0) fs::create_directories(dir);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~shared_scratch() {
    MPI_Barrier(MPI_COMM_WORLD);
    std::error_code ignored;
    if (nax::mpi::world_rank() == 0) fs::remove_all(dir, ignored);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

template <class A>
void check_equal(const A& actual, const A& expected) {
  REQUIRE(actual.extents() == expected.extents());
  index_t wrong = 0;
  for (index_t i = 0; i < actual.size(); ++i) wrong += actual.data()[i] != expected.data()[i];
  CHECK(wrong == 0);
}

TEST_CASE("save_tree of GlobalArrays over 4 ranks writes the gathered tree; load_tree places it on a 2 x 2 mesh") {
  REQUIRE(nax::mpi::world_size() == 4);
  shared_scratch scratch;
  const int rank = nax::mpi::world_rank();
  nax::Mesh<rows> line(nax::mpi::world(), {4});
  nax::Mesh<rows, cols> square(nax::mpi::world(), {2, 2});
  const auto w = filled<float, batch, in>({8, 6}, 0.37);
  const auto b = filled<double, in>({6}, 0.11);
  const auto sharded = std::make_tuple(nax::device_put<nax::shard<batch, rows>>(line, w), nax::device_put<>(line, b));
  CHECK(std::get<0>(sharded).spans_processes());
  CHECK(std::get<0>(sharded).holds(rank));
  CHECK_FALSE(std::get<0>(sharded).holds((rank + 1) % 4));

  const fs::path path = scratch.dir / "sharded.npz";
  nax::io::save_tree(path, sharded);
  // Every rank returns once the file is complete: it equals the gathered tree's file.
  nax::io::save_tree(scratch.dir / ("plain_" + std::to_string(rank) + ".npz"), std::make_tuple(w, b));
  CHECK(slurp(path) == slurp(scratch.dir / ("plain_" + std::to_string(rank) + ".npz")));

  auto like = std::make_tuple(
      nax::device_put<nax::shard<batch, cols>, nax::shard<in, rows>>(square, nax::Array<float, batch, in>({0, 0})),
      nax::device_put<nax::shard<in, cols>>(square, nax::Array<double, in>({0})));
  const auto loaded = nax::io::load_tree(path, like);
  const auto& lw = std::get<0>(loaded);
  CHECK(lw.split_over() == std::array<int, 2>{1, 0});
  // This rank's shard is its block of w; gather() (collective) gives every rank the whole.
  const auto& mine = lw.shard_of(rank);
  REQUIRE(mine.extents() == std::array<index_t, 2>{4, 3});
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j)
      CHECK(mine.data()[i * 3 + j] == w.data()[(lw.offset(rank, 0) + i) * 6 + lw.offset(rank, 1) + j]);
  check_equal(lw.gather(), w);
  check_equal(std::get<1>(loaded).gather(), b);

  // Into plain Arrays on every rank.
  const auto plain = nax::io::load_tree(path, std::make_tuple(nax::Array<float, batch, in>(), nax::Array<double, in>()));
  check_equal(std::get<0>(plain), w);
}

TEST_CASE("save_tree over 4 ranks: when the writing rank fails, every rank raises io_error (none waits)") {
  nax::Mesh<rows> line(nax::mpi::world(), {4});
  const auto sharded = std::make_tuple(nax::device_put<nax::shard<batch, rows>>(line, filled<float, batch, in>({4, 2}, 0.5)),
                                       nax::device_put<nax::shard<in, rows>>(line, filled<float, in>({8}, 0.25)));
  const fs::path nowhere = fs::temp_directory_path() / "nax_no_such_folder" / "x" / "sharded.npz";
  try {
    nax::io::save_tree(nowhere, sharded);
    FAIL("save_tree into a missing folder did not raise");
  } catch (const nax::io_error& e) {
    const std::string text = e.what();
    if (nax::mpi::world_rank() == 0) CHECK(text.find("cannot create") != std::string::npos);
    else CHECK(text.find("the process holding mesh device 0, which writes it, failed") != std::string::npos);
  }
}

}  // namespace checkpoint_mpi
