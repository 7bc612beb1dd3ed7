// expect-compile
// The control of vjp_cotangent_axes, vjp_cotangent_tree and vjp_vector_argument: a pullback of
// two outputs given a tuple of cotangents with their outputs' axes (in another order), and a
// std::array of layers.
#include <nax/nax.hpp>
#include <array>

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
}
