// expect-compile
// Control for the tree_mismatch_* snippets: trees of the same structure (leaf types may differ:
// an Array next to a view, a float next to an int) map without error.
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

#include <array>

NAX_AXIS(in);
NAX_AXIS(out);

struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (nax::Array<float, in, out>, w), (std::array<nax::Array<float, out>, 2>, b),
                           (float, scale));
};

int main() {
  Params params{nax::ones<float, in, out>(3, 2), {nax::ones<float, out>(2), nax::ones<float, out>(2)}, 1.f};
  Params grads = params;
  Params updated = nax::tree_map([](auto p, auto g) { return p - 0.01f * g; }, params, grads);
  auto w = nax::ones<float, in, out>(3, 2);
  auto views = std::make_tuple(w.view(), 2);
  auto sums = nax::tree_map([](auto a, auto b) { return a + b; }, std::tie(updated.w, updated.scale), views);
  (void)sums;
}
