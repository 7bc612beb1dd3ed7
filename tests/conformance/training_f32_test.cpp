// Conformance with JAX, family `training` (data/training/), float32: the examples' own programs
// (examples/train_pmap.cpp, train_logistic.cpp; loops in grad.hpp) from the same initial params
// and data as JAX; every step's loss and the final params. float64: training_test.cpp.
#include "grad.hpp"

namespace {
using namespace conf_grad;
}  // namespace

TEST_CASE("conformance training: the seeds' training loops in float32 (losses per step, final params) against JAX") {
  const auto cases = conf::load_family("training");
  auto run = [&](const Case& c) -> std::string {
    if (c.dtype() != "float32") return conf::skip();
    if (c.op == "train_pmap") return train_pmap<float>(c, c, -1);
    if (c.op == "train_logistic") return train_logistic<float>(c, c, -1);
    return "unknown op " + c.op;
  };
  const auto t = conf::run_family(cases, run, "training/float32");
  CHECK(t.run == 2);
}
