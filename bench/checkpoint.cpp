// save_tree and load_tree of a 1 GiB pytree (16 float leaves of 64 MiB) against copying the
// same file (std::filesystem::copy_file, what cp does) and a plain write of the same bytes from
// one buffer, in the same run: GB/s of checkpoint bytes. Files go to $NAX_BENCH_DIR (default:
// the temporary directory); the page cache holds them on a machine with memory to spare, as it
// does for cp.
// Run: build/host/bench/bench_checkpoint
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nax/io.hpp>
#include <nax/nax.hpp>

NAX_AXIS(row);
NAX_AXIS(col);

namespace {
namespace fs = std::filesystem;
constexpr nax::index_t leaves = 16, rows = 4096, cols = 4096;  // 16 x 64 MiB
constexpr double total_bytes = double(leaves) * rows * cols * sizeof(float);

fs::path dir() {
  const char* d = std::getenv("NAX_BENCH_DIR");
  return d ? fs::path(d) : fs::temp_directory_path();
}

std::vector<nax::Array<float, row, col>>& tree() {
  static std::vector<nax::Array<float, row, col>> t = [] {
    std::vector<nax::Array<float, row, col>> v;
    for (nax::index_t l = 0; l < leaves; ++l) {
      v.emplace_back(std::array<nax::index_t, 2>{rows, cols});
      for (nax::index_t i = 0; i < v.back().size(); ++i) v.back().data()[i] = float(l) + 1e-3f * float(i % 1000);
    }
    return v;
  }();
  return t;
}

void BM_save_tree(benchmark::State& state) {
  const auto path = dir() / "nax_bench_checkpoint.npz";
  tree();  // (filled here, not in the first timed save: it took a tenth of that case's time)
  for (auto _ : state) nax::io::save_tree(path, tree());
  state.counters["GB/s"] = benchmark::Counter(total_bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void BM_load_tree(benchmark::State& state) {
  const auto path = dir() / "nax_bench_checkpoint.npz";
  nax::io::save_tree(path, tree());
  std::vector<nax::Array<float, row, col>> like(leaves);
  for (auto _ : state) {
    nax::io::load_tree_into(path, like);
    benchmark::DoNotOptimize(like[0].data());
  }
  state.counters["GB/s"] = benchmark::Counter(total_bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void BM_copy_file(benchmark::State& state) {
  const auto from = dir() / "nax_bench_checkpoint.npz", to = dir() / "nax_bench_checkpoint_copy.npz";
  nax::io::save_tree(from, tree());
  for (auto _ : state) fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::remove(to);
  state.counters["GB/s"] = benchmark::Counter(total_bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void BM_plain_write(benchmark::State& state) {
  const auto path = dir() / "nax_bench_plain.bin";
  tree();
  for (auto _ : state) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    for (const auto& a : tree()) out.write(reinterpret_cast<const char*>(a.data()), std::streamsize(a.size() * 4));
  }
  fs::remove(path);
  state.counters["GB/s"] = benchmark::Counter(total_bytes * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_save_tree)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_load_tree)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_copy_file)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_plain_write)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK_MAIN();
