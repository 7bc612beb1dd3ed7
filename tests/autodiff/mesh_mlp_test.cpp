// Data plus model parallelism: the gradients of a two-layer MLP on a 4 x 2 (data, model) host
// mesh (batch over data, hidden units over model; psum over the hidden units), averaged with
// pmean over the batch, equal the single-device gradients of the mean loss.
#include "finite_difference.hpp"

namespace {
NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);
NAX_AXIS(out);
using nax::index_t;
}  // namespace

TEST_CASE("grad inside xmap on a 4 x 2 mesh: a two-layer MLP's gradients equal the single-device ones") {
  nax_test::random_source rng(401);
  auto x = nax_test::random_array<double, batch, in>(rng, {8, 3});
  auto y = nax_test::random_array<double, batch, out>(rng, {8, 2});
  auto params = nax::tuple(nax_test::random_array<double, hidden, in>(rng, {4, 3}), nax_test::random_array<double, hidden>(rng, {4}),
                           nax_test::random_array<double, hidden, out>(rng, {4, 2}), nax_test::random_array<double, out>(rng, {2}));
  auto per_example = [](const auto& p, const auto& xs, const auto& ys) {
    auto h = nax::tanh(nax::dot<in>(xs, std::get<0>(p)) + std::get<1>(p));
    return nax::mean(nax::square(nax::psum<hidden>(h * std::get<2>(p)) + std::get<3>(p) - ys));
  };
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  auto [g1, gb1, g2, gb2] = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>([&](const auto& p, const auto& xs, const auto& ys) {
    auto g = nax::grad(per_example)(p, xs, ys);
    return nax::tree_map([](const auto& gi) { return nax::pmean<batch>(gi); }, g);
  }, mesh)(params, x, y);

  auto whole = [](const auto& p, const auto& xs, const auto& ys) {
    auto h = nax::tanh(nax::dot<in>(xs, std::get<0>(p)) + std::get<1>(p));
    return nax::mean(nax::square(nax::dot<hidden>(h, std::get<2>(p)) + std::get<3>(p) - ys));
  };
  auto [r1, rb1, r2, rb2] = nax::grad(whole)(params, x, y);
  auto close = [](const auto& a, const auto& b) {
    auto ia = a.begin();
    for (auto ib = b.begin(); ib != b.end(); ++ia, ++ib) CHECK(*ia == doctest::Approx(*ib).epsilon(1e-10));
  };
  nax::Array<double, hidden, in> g1h = g1;
  nax::Array<double, hidden, out> g2h = g2;
  nax::Array<double, hidden> gb1h = gb1;
  nax::Array<double, out> gb2h = gb2;
  close(g1h, r1);
  close(gb1h, rb1);
  close(g2h, r2);
  close(gb2h, rb2);
}
