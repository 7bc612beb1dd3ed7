// examples/gpt/gpt.hpp's GPT against the same model in JAX (conformance family gpt): the step-0
// gradients of every parameter in float64 to 1e-5 relative, on one device and on a 2 x 2
// (data, model) host mesh.
#include "gpt_support.hpp"

using namespace gpt_support;

TEST_CASE("gpt: step-0 gradients of every parameter against JAX (float64), on one device and on a 2 x 2 mesh") {
  using namespace gpt;
  const auto [c, m, config] = load_case("grads_f64");
  auto x = conf::to_array<std::int32_t, batch, pos>(c.in[0]);
  auto y = conf::to_array<std::int32_t, batch, pos>(c.in[1]);
  auto params = init<double>(config, std::uint32_t(m.at("seed")));
  for (auto shape : {std::pair{1, 1}, std::pair{2, 2}}) {
    const int rows = shape.first, columns = shape.second;  // (clang 16 cannot capture a structured binding under -fopenmp)
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
