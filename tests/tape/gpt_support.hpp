// Reading the conformance family gpt (tests/conformance/generate.py, the model in JAX:
// tests/conformance/gpt_model.py) for tests/tape/gpt_test.cpp and gpt_grads_test.cpp.
#pragma once
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "../../examples/gpt/gpt.hpp"
#include "../conformance/conformance.hpp"

namespace gpt_support {

inline std::map<std::string, nax::index_t> gpt_config(const conf::Case& c) {
  std::map<std::string, nax::index_t> m;
  std::stringstream ss(c.param("config"));
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto colon = item.find(':');
    m[item.substr(0, colon)] = std::stoll(item.substr(colon + 1));
  }
  return m;
}

inline gpt::Config config_of(std::map<std::string, nax::index_t> m) {
  gpt::Config c;
  c.vocab = m.at("vocab");
  c.seq = m.at("seq");
  c.embed = m.at("embed");
  c.heads = m.at("heads");
  c.layers = m.at("layers");
  c.batch = m.at("batch");
  return c;
}

inline gpt::Mesh mesh_of(int rows, int columns) { return gpt::Mesh(nax::host::devices(rows * columns), {rows, columns}); }

// A case of the family with its model's configuration and seed.
struct GptCase {
  conf::Case data;
  std::map<std::string, nax::index_t> settings;
  gpt::Config config;
};

inline GptCase load_case(const std::string& name) {
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

}  // namespace gpt_support
