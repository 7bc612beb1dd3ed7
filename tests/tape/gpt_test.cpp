// examples/gpt/gpt.hpp's GPT against the same model in JAX and optax (conformance family gpt,
// tests/conformance/generate.py): 20 training steps in float32 to 1e-4 relative, the step-0
// gradients of every parameter in float64 to 1e-5, and the 2 x 2 (data, model) host mesh
// against one device: losses to 1e-5 relative, gradients to 1e-5 in float64; and
// examples/gpt.cpp's driver (training, checkpoint, resume, sampling) at a small size.
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#define NAX_EXAMPLE_NO_MAIN
#include "../../examples/gpt.cpp"  // (the test preset builds the example only here: NAX_EXAMPLES_RUN_BY_TESTS)
#include "../conformance/conformance.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

NAX_AXIS(nax_step);  // the training steps of the JAX data

std::map<std::string, nax::index_t> gpt_config(const conf::Case& c) {
  std::map<std::string, nax::index_t> m;
  std::stringstream ss(c.param("config"));
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto colon = item.find(':');
    m[item.substr(0, colon)] = std::stoll(item.substr(colon + 1));
  }
  return m;
}

gpt::Config config_of(std::map<std::string, nax::index_t> m) {
  gpt::Config c;
  c.vocab = m.at("vocab");
  c.seq = m.at("seq");
  c.embed = m.at("embed");
  c.heads = m.at("heads");
  c.layers = m.at("layers");
  c.batch = m.at("batch");
  return c;
}

gpt::Mesh mesh_of(int rows, int columns) { return gpt::Mesh(nax::host::devices(rows * columns), {rows, columns}); }

// A case of the family with its model's configuration and seed.
struct GptCase {
  conf::Case data;
  std::map<std::string, nax::index_t> settings;
  gpt::Config config;
};

GptCase load_case(const std::string& name) {
  for (auto& c : conf::load_family("gpt"))
    if (c.name == name) {
      auto m = gpt_config(c);
      return {c, m, config_of(m)};
    }
  throw std::runtime_error("gpt conformance: no case " + name);
}

// Compares nax's gradient leaf with JAX's (whose dimensions are in Axes' order).
template <class... Axes, class G>
void check_leaf(const npy::Array& want, const G& got, const std::string& name, double rtol) {
  nax::Array<double, Axes...> ordered = got;  // by name, into JAX's order
  INFO(name);
  CHECK(conf::compare(want, ordered, rtol) == "");
}

}  // namespace

TEST_CASE("gpt: 20 training steps against JAX and optax (float32), and on a 2 x 2 mesh against one device") {
  using namespace gpt;
  const auto loaded = load_case("train_f32");
  const auto& c = loaded.data;
  const auto& m = loaded.settings;
  const Config& config = loaded.config;
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

TEST_CASE("gpt: step-0 gradients of every parameter against JAX (float64), on one device and on a 2 x 2 mesh") {
  using namespace gpt;
  const auto loaded = load_case("grads_f64");
  const auto& c = loaded.data;
  const auto& m = loaded.settings;
  const Config& config = loaded.config;
  auto x = conf::to_array<std::int32_t, batch, pos>(c.in[0]);
  auto y = conf::to_array<std::int32_t, batch, pos>(c.in[1]);
  auto params = init<double>(config, std::uint32_t(m.at("seed")));
  for (auto [rows, columns] : {std::pair{1, 1}, std::pair{2, 2}}) {
    INFO("mesh " << rows << " x " << columns);
    auto [loss, g] = make_gradient_step(mesh_of(rows, columns))(params, x, y);
    CHECK(std::abs(loss - c.out[0].as_double(0)) <= 1e-12 * std::abs(c.out[0].as_double(0)));
    const double rtol = 1e-5;
    const auto& o = c.out;
    check_leaf<vocab, embed>(o[1], g.token_embedding, "token_embedding", rtol);
    check_leaf<pos, embed>(o[2], g.position_embedding, "position_embedding", rtol);
    check_leaf<layer, embed>(o[3], g.blocks.ln1_scale, "ln1_scale", rtol);
    check_leaf<layer, embed>(o[4], g.blocks.ln1_bias, "ln1_bias", rtol);
    check_leaf<layer, head, embed, head_dim>(o[5], g.blocks.wq, "wq", rtol);
    check_leaf<layer, head, embed, head_dim>(o[6], g.blocks.wk, "wk", rtol);
    check_leaf<layer, head, embed, head_dim>(o[7], g.blocks.wv, "wv", rtol);
    check_leaf<layer, head, head_dim, embed>(o[8], g.blocks.wo, "wo", rtol);
    check_leaf<layer, embed>(o[9], g.blocks.ln2_scale, "ln2_scale", rtol);
    check_leaf<layer, embed>(o[10], g.blocks.ln2_bias, "ln2_bias", rtol);
    check_leaf<layer, embed, hidden>(o[11], g.blocks.w_up, "w_up", rtol);
    check_leaf<layer, hidden>(o[12], g.blocks.b_up, "b_up", rtol);
    check_leaf<layer, hidden, embed>(o[13], g.blocks.w_down, "w_down", rtol);
    check_leaf<layer, embed>(o[14], g.blocks.b_down, "b_down", rtol);
    check_leaf<embed>(o[15], g.lnf_scale, "lnf_scale", rtol);
    check_leaf<embed>(o[16], g.lnf_bias, "lnf_bias", rtol);
    check_leaf<embed, vocab>(o[17], g.w_out, "w_out", rtol);
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
