// expect: nax: optim: the state \(State\) is not this transform's state \(Transform\)
// expect: require_state_of<nax::optim::chain_t<nax::optim::identity, nax::optim::scale>, std::tuple<nax::optim::ScaleByAdamState
// adam's state given to sgd's update.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>
NAX_AXIS(a);
int main() {
  nax::Array<float, a> params = nax::ones<float, a>(3);
  auto state = nax::optim::adam(0.1).init(params);
  auto [updates, next] = nax::optim::sgd(0.1).update(params, state, params);
}
