// expect-compile
// The control for protocol_*.cpp: nax's own reductions, evaluators and host space model the
// concepts that those snippets break.

#include <nax/nax.hpp>
#include <array>

NAX_AXIS(i);
NAX_AXIS(j);

static_assert(nax::detail::reduction_op<nax::detail::sum_op> && nax::detail::reduction_op<nax::detail::prod_op> &&
              nax::detail::reduction_op<nax::detail::max_op> && nax::detail::reduction_op<nax::detail::min_op>);
static_assert(nax::detail::memory_space<nax::detail::host_space>);
static_assert(nax::detail::mesh_hooks_of<nax::detail::space_on_mesh<nax::detail::host_space>, nax::detail::host_space>);
static_assert(nax::detail::evaluator<nax::detail::leaf_eval<float, 2, true>>);
static_assert(nax::detail::evaluator<nax::detail::scalar_eval<double>>);

int main() {
  nax::Array<float, i, j> a({2, 3});
  nax::Array<float, i> s = nax::sum<j>(a * a + 1.f);
  (void)s;
}
