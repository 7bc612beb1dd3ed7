// expect: nax: optim: the gradients \(Grads\) do not have the structure of the parameters
// expect: require_grads_match_params<std::tuple<nax::Array<float, a>, nax::Array<float, b> ?>, std::tuple<nax::Array<float, a> ?> ?>
// Gradients of one leaf for parameters of two.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>
NAX_AXIS(a);
NAX_AXIS(b);
int main() {
  auto params = std::make_tuple(nax::ones<float, a>(3), nax::ones<float, b>(2));
  auto grads = std::make_tuple(nax::ones<float, a>(3));
  auto opt = nax::optim::adam(0.1);
  auto state = opt.init(params);
  auto [updates, next] = opt.update(grads, state, params);
}
