// expect-compile
// The control of custom_vjp_cotangent_axes and custom_vjp_cotangent_count: a custom backward
// pass with one cotangent per argument, in its argument's axes (in another order), and a
// checkpointed block, both inside grad.
#include <nax/nax.hpp>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  auto f = nax::custom_vjp(
      [](const auto& a, const auto& w) { return std::pair(nax::dot<in>(a, w), nax::tuple(nax::eval(a), nax::eval(w))); },
      [](const auto& res, const auto& ct) {
        return nax::tuple(nax::dot<out>(ct, std::get<1>(res)), nax::transpose<out, in>(std::get<0>(res) * ct));
      });
  nax::Array<double, in> x({3});
  nax::Array<double, in, out> w({3, 2});
  auto g = nax::grad<0, 1>([&](const auto& a, const auto& b) {
    auto h = nax::checkpoint([](const auto& u, const auto& v) { return nax::tanh(nax::dot<in>(u, v)); })(a, b);
    return nax::sum(f(a, b) * h);
  })(x, w);
  (void)g;
}
