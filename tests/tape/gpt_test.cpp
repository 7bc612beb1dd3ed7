// examples/gpt/gpt.hpp's GPT against the same model in JAX and optax (conformance family gpt):
// 20 training steps in float32 to 1e-4 relative, the 2 x 2 (data, model) host mesh against one
// device to 1e-5; and examples/gpt.cpp's driver (training, checkpoint, resume, sampling) at a
// small size. The float64 gradients are in gpt_grads_test.cpp (a file of their own, so that
// the two instantiations of the model compile in parallel).
#define NAX_EXAMPLE_NO_MAIN
#include "../../examples/gpt.cpp"  // (the test preset builds the example only here: NAX_COMPILED_BY_TESTS)

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gpt_support.hpp"

using namespace gpt_support;

namespace {
NAX_AXIS(nax_step);  // the training steps of the JAX data
}  // namespace

TEST_CASE("gpt: 20 training steps against JAX and optax (float32), and on a 2 x 2 mesh against one device") {
  using namespace gpt;
  const auto [c, m, config] = load_case("train_f32");
  auto inputs = conf::to_array<std::int32_t, nax_step, batch, pos>(c.in[0]);
  auto targets = conf::to_array<std::int32_t, nax_step, batch, pos>(c.in[1]);
  Schedule schedule;
  schedule.steps = m.at("steps");
  schedule.warmup = 5;
  std::vector<std::vector<double>> losses;
  for (auto [rows, columns] : {std::pair{1, 1}, std::pair{2, 2}}) {
    Trainer<float> trainer(init<float>(config, std::uint32_t(m.at("seed"))), schedule, mesh_of(rows, columns));
    losses.emplace_back();
    for (index_t s = 0; s < schedule.steps; ++s) {
      nax::Array<std::int32_t, batch, pos> x = nax::take<nax_step>(inputs, s), y = nax::take<nax_step>(targets, s);
      losses.back().push_back(trainer.train(x, y));
    }
  }
  const auto& want = c.out[0];
  REQUIRE(want.shape == std::vector<std::int64_t>{schedule.steps});
  for (index_t s = 0; s < schedule.steps; ++s) {
    INFO("step " << s);
    CHECK(std::abs(losses[0][s] - want.as_double(s)) <= 1e-4 * std::abs(want.as_double(s)));
    CHECK(std::abs(losses[1][s] - losses[0][s]) <= 1e-5 * std::abs(losses[0][s]));
  }
}

TEST_CASE("gpt example: trains on a 2 x 2 mesh, saves a checkpoint, resumes from it, samples") {
  const auto dir = std::filesystem::temp_directory_path() / ("nax_gpt_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto text = dir / "text.txt", checkpoint = dir / "gpt.npz";
  {
    std::ofstream out(text);
    for (int k = 0; k < 40; ++k) out << "the cat sat on the mat; the dog sat on the log.\n";
  }
  gpt_example::Options o;
  o.text = text.string();
  o.config.layers = 1;
  o.config.embed = 16;
  o.config.heads = 2;
  o.config.seq = 16;
  o.config.batch = 4;
  o.schedule.steps = 12;
  o.schedule.warmup = 2;
  o.mesh_rows = o.mesh_columns = 2;
  o.checkpoint = checkpoint.string();
  o.save_every = 4;
  o.generate = 12;
  o.prompt = "the ";
  CHECK(gpt_example::run(o) == 0);  // the loss fell
  REQUIRE(std::filesystem::exists(checkpoint));
  o.schedule.steps = 14;  // resumes at step 12 (saved there), trains 2 more
  o.generate = 0;
  CHECK(gpt_example::run(o) == 0);
  o.prompt = "the #";  // a character the text lacks
  o.generate = 1;
  CHECK_THROWS_AS(gpt_example::run(o), std::invalid_argument);
  std::filesystem::remove_all(dir);
}
