// Issue 19's speed: one training step (gradients by xmap of value_and_grad, then clip + AdamW)
// of examples/gpt/gpt.hpp's GPT, in tokens per second (batch x sequence / step time), against
// JAX jit of the same step on the CPU (bench/jax_peers.py gpt, the model of
// tests/conformance/gpt_model.py), in one run:
//   default: 2 layers, width 64, 4 heads, sequence 64, batch 16 (examples/gpt.cpp's default),
//            on one device (1 x 1 mesh) and on a 2 x 2 host mesh (the collectives' overhead);
//   large:   6 layers, width 384, 6 heads, sequence 256, batch 32 (with --large).
// Run: OMP_NUM_THREADS=2 OMP_PROC_BIND=true build/host/bench/bench_gpt [--large] [--no-jax]
// (NAX_JAX_PYTHON names a python that imports jax and optax, e.g. a venv's; python3 otherwise)
#include "../examples/gpt/gpt.hpp"
#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {
using gpt::index_t;

// Median seconds of one step over 5 repetitions of at least 1 s each (after 2 warm-up steps).

double step_seconds(const gpt::Config& c, int rows, int columns) {
  gpt::Schedule schedule;
  schedule.warmup = 50;
  gpt::Trainer<float> trainer(gpt::init<float>(c, 0), schedule,
                              gpt::Mesh(nax::host::devices(rows * columns), {rows, columns}));
  nax::Array<std::int32_t, gpt::batch, gpt::pos> x({c.batch, c.seq}), y({c.batch, c.seq});
  for (index_t i = 0; i < x.size(); ++i) {
    x.data()[i] = std::int32_t((i * 7919 + 13) % c.vocab);
    y.data()[i] = std::int32_t((i * 104729 + 5) % c.vocab);
  }
  return nax_bench::median_seconds([&] { (void)trainer.train(x, y); }, 1.0, 2);
}

std::map<std::string, double> jax_seconds(bool large) {
  std::map<std::string, double> out;
  const std::string cmd = nax_bench::jax_peers_command(std::string("gpt ") + (large ? "" : "default"), "jax, optax");
  if (std::FILE* pipe = popen(cmd.c_str(), "r")) {
    char name[256];
    double seconds;
    while (std::fscanf(pipe, "%255s %lf", name, &seconds) == 2) out[name] = seconds;
    pclose(pipe);
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  bool large = false, jax = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--large")) large = true;
    else if (!std::strcmp(argv[i], "--no-jax")) jax = false;
  }
  gpt::Config small;
  small.vocab = 76;  // the GPL-3 text's characters
  gpt::Config big = small;
  big.layers = 6;
  big.embed = 384;
  big.heads = 6;
  big.seq = 256;
  big.batch = 32;

  struct Row {
    std::string name, jax_name;
    const gpt::Config* config;
    int rows, columns;
  };
  std::vector<Row> rows = {{"default, 1 x 1 mesh", "gpt_step_default/jax_cpu", &small, 1, 1},
                           {"default, 2 x 2 host mesh", "", &small, 2, 2}};
  if (large) rows.push_back({"large, 1 x 1 mesh", "gpt_step_large/jax_cpu", &big, 1, 1});
  std::map<std::string, double> peers;
  if (jax) peers = jax_seconds(large);
  std::printf("%-26s %12s %12s %12s %10s\n", "GPT training step", "nax ms", "tokens/s", "JAX ms", "nax/JAX");
  double single = 0;
  for (const auto& r : rows) {
    const double s = step_seconds(*r.config, r.rows, r.columns);
    if (r.rows * r.columns == 1 && r.config == &small) single = s;
    const double tokens = double(r.config->batch * r.config->seq) / s;
    auto it = peers.find(r.jax_name);
    if (it != peers.end())
      std::printf("%-26s %12.2f %12.0f %12.2f %9.2fx\n", r.name.c_str(), s * 1e3, tokens, it->second * 1e3,
                  it->second / s);
    else
      std::printf("%-26s %12.2f %12.0f %12s %10s   (%.2fx the 1 x 1 step's time)\n", r.name.c_str(), s * 1e3, tokens,
                  "", "", single > 0 ? s / single : 0.0);
  }
  std::printf("(nax/JAX > 1: nax is faster)\n");
}
