// Trains the character-level GPT of examples/gpt/gpt.hpp on a text file (by default the GPL-3
// text that Debian's base-files package installs) and samples from it. The step runs by xmap on
// a (data, model) host mesh: batch over data, heads and MLP units over model (--mesh 2x2), or
// on one device (--mesh 1x1, the default). AdamW with warmup-cosine and global-norm clipping;
// --checkpoint PATH saves parameters, optimizer state and step every --save-every steps and
// resumes from PATH when it exists. Exits non-zero unless the loss fell (over 10 steps or more).
//
//   gpt [--text PATH] [--layers 2] [--embed 64] [--heads 4] [--seq 64] [--batch 16]
//       [--steps 300] [--rate 1e-2] [--mesh 1x1] [--seed 0] [--checkpoint PATH]
//       [--save-every 100] [--generate 200] [--prompt TEXT] [--temperature 0.8]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gpt/gpt.hpp"  // (first: <nax/nax.hpp> decides that this file records evaluations)

#include <nax/io.hpp>

namespace gpt_example {

struct Options {
  std::string text = "/usr/share/common-licenses/GPL-3";
  gpt::Config config;
  gpt::Schedule schedule;
  int mesh_rows = 1, mesh_columns = 1;
  std::uint32_t seed = 0;
  std::string checkpoint;
  nax::index_t save_every = 100;
  nax::index_t generate = 200;
  std::string prompt = "This License";
  double temperature = 0.8;
};

// The characters of the text, sorted; a character's token is its position.
struct Alphabet {
  std::string chars;
  std::vector<std::int32_t> encode(const std::string& s) const {
    std::vector<std::int32_t> out;
    for (char ch : s) {
      auto at = chars.find(ch);
      if (at == std::string::npos) throw std::invalid_argument(std::string("gpt: the prompt has a character the text lacks: '") + ch + "'");
      out.push_back(std::int32_t(at));
    }
    return out;
  }
};

inline int run(const Options& o) {
  using namespace gpt;
  std::ifstream file(o.text, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "gpt: cannot read %s (give a text file with --text)\n", o.text.c_str());
    return 2;
  }
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string text = buffer.str();
  Alphabet alphabet;
  alphabet.chars = text;
  std::sort(alphabet.chars.begin(), alphabet.chars.end());
  alphabet.chars.erase(std::unique(alphabet.chars.begin(), alphabet.chars.end()), alphabet.chars.end());
  const std::vector<std::int32_t> tokens = alphabet.encode(text);

  Config c = o.config;
  c.vocab = index_t(alphabet.chars.size());
  c.check();
  if (index_t(tokens.size()) < c.seq + 2) {
    std::fprintf(stderr, "gpt: the text (%zu characters) is shorter than a sequence\n", tokens.size());
    return 2;
  }
  Mesh mesh(nax::host::devices(o.mesh_rows * o.mesh_columns), {o.mesh_rows, o.mesh_columns});
  std::printf("gpt: %zu characters, vocabulary %d; %d layers, width %d, %d heads, sequence %d, batch %d; mesh %d x %d\n",
              tokens.size(), int(c.vocab), int(c.layers), int(c.embed), int(c.heads), int(c.seq), int(c.batch),
              o.mesh_rows, o.mesh_columns);

  Trainer<float> trainer(init<float>(c, o.seed), o.schedule, mesh);
  if (!o.checkpoint.empty() && std::filesystem::exists(o.checkpoint)) {
    auto [p, st, at] = nax::io::load_tree(o.checkpoint, std::make_tuple(trainer.params, trainer.state, nax::Array<std::int64_t>()));
    trainer.params = std::move(p);
    trainer.state = std::move(st);
    trainer.step = at.item();
    std::printf("resumed from %s at step %d\n", o.checkpoint.c_str(), int(trainer.step));
  }
  auto save = [&] {
    nax::Array<std::int64_t> at(std::array<nax::index_t, 0>{});
    at.data()[0] = trainer.step;
    nax::io::save_tree(o.checkpoint, std::make_tuple(trainer.params, trainer.state, at));
  };

  // Random windows of the text: inputs and the characters that follow them.
  std::mt19937_64 windows(o.seed + 1);
  std::uniform_int_distribution<std::size_t> start(0, tokens.size() - std::size_t(c.seq) - 1);
  nax::Array<std::int32_t, batch, pos> x({c.batch, c.seq}), y({c.batch, c.seq});
  double first = 0, recent = 0;
  int counted = 0;
  const auto began = std::chrono::steady_clock::now();
  const index_t from = trainer.step;
  for (; trainer.step < o.schedule.steps;) {
    for (index_t b = 0; b < c.batch; ++b) {
      std::size_t s = start(windows);
      for (index_t t = 0; t < c.seq; ++t) {
        x(b, t) = tokens[s + t];
        y(b, t) = tokens[s + t + 1];
      }
    }
    const double loss = trainer.train(x, y);
    if (trainer.step == from + 1) first = loss;
    recent = counted < 10 ? (recent * counted + loss) / (counted + 1) : 0.9 * recent + 0.1 * loss;
    ++counted;
    if (trainer.step % 25 == 0 || trainer.step == o.schedule.steps)
      std::printf("step %4d  loss %.4f\n", int(trainer.step), loss);
    if (!o.checkpoint.empty() && (trainer.step % o.save_every == 0 || trainer.step == o.schedule.steps)) save();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  const index_t trained = trainer.step - from;
  if (trained > 0)
    std::printf("%d steps in %.1f s: %.0f tokens/s; loss %.3f -> %.3f (running mean)\n", int(trained), seconds,
                double(trained * c.batch * c.seq) / seconds, first, recent);

  // Sampling: the context's last `seq` characters, padded at the end (a causal model's logits
  // at the last real position do not see the padding).
  if (o.generate > 0) {
    // One sequence at a time: the batch stays on one data replica, the model split as in training.
    auto logits_of = make_logits(Mesh(nax::host::devices(o.mesh_columns), {1, o.mesh_columns}));
    std::vector<std::int32_t> context = alphabet.encode(o.prompt);
    std::string out = o.prompt;
    auto keys = nax::random::split(nax::random::key(o.seed + 2), o.generate);
    nax::Array<std::int32_t, batch, pos> window({1, c.seq});
    for (index_t i = 0; i < o.generate; ++i) {
      const index_t n = std::min<index_t>(index_t(context.size()), c.seq);
      for (index_t t = 0; t < c.seq; ++t) window(0, t) = t < n ? context[context.size() - n + t] : 0;
      auto logits = logits_of(trainer.params, window);
      auto row = nax::take<pos>(nax::take<batch>(logits, 0), n - 1);
      auto next = nax::random::categorical<vocab>(keys[i], row * float(1.0 / o.temperature));
      std::int32_t token = nax::item(next);
      context.push_back(token);
      out += alphabet.chars[std::size_t(token)];
    }
    std::printf("--- sample ---\n%s\n--------------\n", out.c_str());
  }
  if (trained >= 10 && !(recent < first)) {  // (a resumed run of a few steps is too short to tell)
    std::printf("the loss did not fall\n");
    return 1;
  }
  return 0;
}

inline bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument("gpt: " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--text") o.text = value();
    else if (a == "--layers") o.config.layers = std::stoll(value());
    else if (a == "--embed") o.config.embed = std::stoll(value());
    else if (a == "--heads") o.config.heads = std::stoll(value());
    else if (a == "--seq") o.config.seq = std::stoll(value());
    else if (a == "--batch") o.config.batch = std::stoll(value());
    else if (a == "--steps") o.schedule.steps = std::stoll(value());
    else if (a == "--warmup") o.schedule.warmup = std::stoll(value());
    else if (a == "--rate") o.schedule.peak_rate = std::stod(value());
    else if (a == "--seed") o.seed = std::uint32_t(std::stoul(value()));
    else if (a == "--checkpoint") o.checkpoint = value();
    else if (a == "--save-every") o.save_every = std::stoll(value());
    else if (a == "--generate") o.generate = std::stoll(value());
    else if (a == "--prompt") o.prompt = value();
    else if (a == "--temperature") o.temperature = std::stod(value());
    else if (a == "--mesh") {
      std::string m = value();
      if (std::sscanf(m.c_str(), "%dx%d", &o.mesh_rows, &o.mesh_columns) != 2 || o.mesh_rows < 1 || o.mesh_columns < 1)
        throw std::invalid_argument("gpt: --mesh takes DATAxMODEL, e.g. 2x2");
    } else {
      return false;
    }
  }
  o.schedule.warmup = std::min(o.schedule.warmup, o.schedule.steps);
  return true;
}

}  // namespace gpt_example

#ifndef NAX_EXAMPLE_NO_MAIN
int main(int argc, char** argv) {
  gpt_example::Options options;
  options.schedule.steps = 300;
  options.schedule.warmup = 30;
  try {
    if (!gpt_example::parse(argc, argv, options)) {
      std::printf("usage: see the comment at the top of examples/gpt.cpp\n");
      return 2;
    }
    return gpt_example::run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
#endif
