// expect-compile
// The control of vjp_cotangent_axes and vjp_cotangent_tree: a pullback of two outputs given a
// tuple of cotangents with their outputs' axes (in another order), a std::array of layers, and
// a std::vector of layers (a run-time depth).
#include <nax/nax.hpp>
#include <array>
#include <vector>

NAX_AXIS(in);
NAX_AXIS(out);

int main() {
  nax::Array<double, in> x({3});
  std::array<nax::Array<double, in, out>, 2> ws{nax::Array<double, in, out>({3, 2}), nax::Array<double, in, out>({3, 2})};
  auto [ys, pullback] = nax::vjp([](const auto& a, const auto& w) {
    auto h = nax::eval(nax::dot<in>(a, w[0]) + nax::dot<in>(a, w[1]));
    return nax::tuple(h, nax::sum(h));
  })(x, ws);
  nax::Array<double, out> ct({2});
  nax::Array<double> one(std::array<nax::index_t, 0>{});
  auto [gx, gws] = pullback(nax::tuple(nax::transpose<out>(ct), one));
  (void)gx;
  (void)gws;
  std::vector<nax::Array<double, in, out>> layers(2, nax::Array<double, in, out>({3, 2}));
  auto [v, vector_pullback] = nax::vjp([](const auto& a, const auto& ls) { return nax::dot<in>(a, ls[0] + ls[1]); })(x, layers);
  auto [vx, vls] = vector_pullback(ct);
  static_assert(std::is_same_v<decltype(vls), std::vector<nax::Array<double, in, out>>>);
  (void)vx;
}
