// expect-compile
// The control of tree_vector_leaves, grad_vector_nested and grad_vector_of_numbers: a
// std::vector of layers through grad, tree_map and tree_reduce, with evaluations inside f.
#include <nax/nax.hpp>
#include <vector>
NAX_AXIS(row);
int main() {
  std::vector<nax::Array<float, row>> layers(2, nax::ones<float, row>(3));
  auto loss = [](const std::vector<nax::Array<float, row>>& ls) {
    nax::Array<float, row> h = nax::ones<float, row>(3);
    for (const auto& l : ls) h = nax::tanh(h * l);
    return nax::sum(nax::stop_gradient(h) + std::move(h));
  };
  auto g = nax::grad(loss)(layers);
  auto next = nax::tree_map([](auto p, auto d) { return p - 0.1f * d; }, layers, g);  // lazy leaves, as always
  nax::Array<float, row> first = next[0];
  float norm = nax::tree_reduce([](float acc, auto d) { return acc + nax::sum(d * d).item(); }, g, 0.f);
  return next.size() == 2 && first.size() == 3 && norm >= 0 ? 0 : 1;
}
