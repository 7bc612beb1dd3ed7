// expect: nax: optim: the weight-decay mask \(Mask\) is neither a tree of bools with the structure of the parameters
// expect: require_mask_matches_params<std::tuple<nax::Array<float, a>, nax::Array<float, b> ?>, std::tuple<bool> ?>
// adamw's mask names one leaf of two.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>
NAX_AXIS(a);
NAX_AXIS(b);
int main() {
  auto params = std::make_tuple(nax::ones<float, a>(3), nax::ones<float, b>(2));
  auto opt = nax::optim::adamw(0.1, 0.9, 0.999, 1e-8, 0.0, 1e-4, std::make_tuple(true));
  auto state = opt.init(params);
  auto [updates, next] = opt.update(params, state, params);
}
