// CUDA backend: concatenate, stack, merge and argmax/argmin against the host backend on random
// extents (0 and 1 included): concatenation along each axis with operands of different
// extents and types, expression operands, stack, merge read in place and through a layout
// (a transposed array, an expression), argmax/argmin over each axis with ties and NaN, and
// grad through concatenate and merge.
#include "device_support.hpp"

#include <cmath>
#include <limits>

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(ij);
NAX_AXIS(s);
using namespace nax_cuda_test;
using nax::index_t;
}  // namespace

TEST_CASE("cuda: concatenate and stack match the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 20; ++trial) {
    const index_t ni = random_extent(), nj = random_extent(), n2 = random_extent();
    auto a = random_array<float, i, j>({ni, nj});
    auto b = random_array<float, i, j>({n2, nj});
    auto c = random_array<int, i, j>({ni, n2});
    auto da = nax::cuda::to_device(a);
    auto db = nax::cuda::to_device(b);
    auto dc = nax::cuda::to_device(c);
    {  // along the outer axis, with an expression operand
      nax::Array<float, i, j> h = nax::concatenate<i>(a, b * 2.f, a);
      nax::cuda::Array<float, i, j> d = nax::concatenate<i>(da, db * 2.f, da);
      check_same(nax::cuda::to_host(d), h, 0.0);
    }
    {  // along the inner axis, int promoted to float, assigned transposed
      nax::Array<float, j, i> h = nax::concatenate<j>(a, c) + 1.f;
      nax::cuda::Array<float, j, i> d = nax::concatenate<j>(da, dc) + 1.f;
      check_same(nax::cuda::to_host(d), h, 0.0);
    }
    {  // stack
      nax::Array<float, s, i, j> h = nax::stack<s>(a, nax::exp(a));
      nax::cuda::Array<float, s, i, j> d = nax::stack<s>(da, nax::exp(da));
      check_same(nax::cuda::to_host(d), h, 1e-6);
    }
  }
}

TEST_CASE("cuda: merge matches the host (in place, through a layout, of an expression)") {
  if (no_device()) return;
  for (int trial = 0; trial < 20; ++trial) {
    const index_t ni = random_extent(), nj = random_extent(), nk = random_extent();
    auto x = random_array<float, i, j, k>({ni, nj, nk});
    auto dx = nax::cuda::to_device(x);
    {  // adjacent and contiguous: read in place
      nax::Array<float, ij, k> h = nax::merge<i, j, ij>(x);
      nax::cuda::Array<float, ij, k> d = nax::merge<i, j, ij>(dx);
      check_same(nax::cuda::to_host(d), h, 0.0);
    }
    {  // inner before outer in memory: laid out first
      nax::Array<float, ij, k> h = nax::merge<j, i, ij>(x);
      nax::cuda::Array<float, ij, k> d = nax::merge<j, i, ij>(dx);
      check_same(nax::cuda::to_host(d), h, 0.0);
    }
    {  // of an expression, the merged axis innermost
      nax::Array<float, i, ij> h = nax::merge<j, k, ij>(x * 3.f - 1.f);
      nax::cuda::Array<float, i, ij> d = nax::merge<j, k, ij>(dx * 3.f - 1.f);
      check_same(nax::cuda::to_host(d), h, 0.0);
    }
  }
}

TEST_CASE("cuda: argmax and argmin match the host (ties: the first; NaN wins)") {
  if (no_device()) return;
  for (int trial = 0; trial < 20; ++trial) {
    const index_t ni = random_extent() + 1, nj = random_extent() + 1;
    auto x = random_array<float, i, j>({ni, nj});
    for (auto& v : x) v = std::round(v);  // many ties
    if (trial % 3 == 0) x.data()[(ni * nj) / 2] = std::numeric_limits<float>::quiet_NaN();
    auto y = random_array<int, i, j>({ni, nj});
    auto dx = nax::cuda::to_device(x);
    auto dy = nax::cuda::to_device(y);
    check_same(nax::cuda::to_host(nax::cuda::Array<std::int32_t, i>(nax::argmax<j>(dx))),
               nax::Array<std::int32_t, i>(nax::argmax<j>(x)));
    check_same(nax::cuda::to_host(nax::cuda::Array<std::int32_t, j>(nax::argmin<i>(dx))),
               nax::Array<std::int32_t, j>(nax::argmin<i>(x)));
    check_same(nax::cuda::to_host(nax::cuda::Array<std::int32_t, j>(nax::argmax<i>(dy * 2 + 1))),
               nax::Array<std::int32_t, j>(nax::argmax<i>(y * 2 + 1)));
  }
}

TEST_CASE("cuda grad: through concatenate and merge, as on the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 6; ++trial) {
    const index_t ni = random_extent() + 1, nj = random_extent() + 1;
    auto a = random_array<double, i, j>({ni, nj});
    auto b = random_array<double, i, j>({ni + 1, nj});
    auto loss = [](const auto& p, const auto& q) {
      auto joined = nax::concatenate<i>(nax::tanh(p), q * p.template extent<j>());
      return nax::sum(nax::square(nax::merge<i, j, ij>(joined)) * 0.5);
    };
    auto [hp, hq] = nax::grad<0, 1>(loss)(a, b);
    auto [dp, dq] = nax::grad<0, 1>(loss)(nax::cuda::to_device(a), nax::cuda::to_device(b));
    check_same(nax::cuda::to_host(dp), hp, 1e-9);
    check_same(nax::cuda::to_host(dq), hq, 1e-9);
  }
}
