// Conformance with JAX, family `training` (data/training/), float64: the JAX programs' training loops
// (examples/train_pmap.cpp: 10 steps; train_logistic.cpp: 100 steps) run by JAX and by nax from
// the same initial params and data (the float32 data, widened); every step's loss and the final
// params agree to 1e-6. The loops: grad.hpp. (A float32 run of the same loops, the examples'
// exact programs, passed at 1e-5 and was dropped to keep CI within its time; the examples
// themselves run in CI.)
#include "grad.hpp"

namespace {
using namespace conf_grad;
}  // namespace

TEST_CASE("conformance training: the JAX programs' training loops in float64 (losses per step, final params) against JAX") {
  const auto cases = conf::load_family("training");
  auto run = [&](const Case& c) -> std::string {
    if (c.dtype() != "float64") return conf::skip();
    if (c.op == "train_pmap") return train_pmap<double>(c, data_of(cases, c), -1);
    if (c.op == "train_logistic") return train_logistic<double>(c, data_of(cases, c), -1);
    return "unknown op " + c.op;
  };
  const auto t = conf::run_family(cases, run, "training/float64");
  CHECK(t.run == 2);
}
