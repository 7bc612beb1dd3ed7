// expect: nax: optim: this transform \(Transform\) reads the parameters
// expect: require_params_given<nax::optim::chain_t<nax::optim::scale_by_adam, nax::optim::add_decayed_weights<(double, nax::optim::all_leaves)?>, nax::optim::scale> ?>
// adamw's decoupled weight decay needs params: update(grads, state) does not give them.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>
NAX_AXIS(a);
int main() {
  nax::Array<float, a> params = nax::ones<float, a>(3);
  auto opt = nax::optim::adamw(0.1);
  auto state = opt.init(params);
  auto [updates, next] = opt.update(params, state);
}
