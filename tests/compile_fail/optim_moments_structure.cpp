// expect: nax: optim: a moment of the state \(Moments\) does not have the structure of the parameters \(Params\)
// expect: require_moments_match_params<Layer, std::tuple<nax::Array<float, a>, nax::Array<float, b> ?> ?>
// adam's state made from a std::tuple of the arrays, then updated with the struct that holds
// them: a struct and a tuple are different trees.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>
NAX_AXIS(a);
NAX_AXIS(b);
struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<float, a>, w), (nax::Array<float, b>, bias));
};
int main() {
  Layer params{nax::ones<float, a>(3), nax::ones<float, b>(2)};
  auto opt = nax::optim::adam(0.1);
  auto state = opt.init(std::make_tuple(params.w, params.bias));
  auto [updates, next] = opt.update(params, state, params);
}
