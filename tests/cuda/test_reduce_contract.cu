// CUDA backend, reductions and contractions against the host backend on random extents
// (0 and 1 included): every reduction over each axis (the reduced-innermost and the
// kept-innermost kernels), fused producers, mean and logsumexp, item(); dot with batch,
// outer and contracted axes, transposed and expression operands, float/double/int.
#include "device_support.hpp"

namespace {
NAX_AXIS(b);
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
using namespace nax_cuda_test;

// Every reduction kernel path over x of extents (ni, nj, nk), against the host.
void reductions_match_host(nax::index_t ni, nax::index_t nj, nax::index_t nk) {
  auto x = random_array<float, i, j, k>({ni, nj, nk});
  auto y = random_array<float, j>({nj});
  auto dx = nax::cuda::to_device(x);
  auto dy = nax::cuda::to_device(y);
  const double tol = 1e-4;
  {  // innermost axis reduced
    nax::Array<float, i, j> h = nax::sum<k>(x * y + 1.f);
    nax::cuda::Array<float, i, j> d = nax::sum<k>(dx * dy + 1.f);
    check_same(nax::cuda::to_host(d), h, tol);
  }
  {  // innermost axis kept
    nax::Array<float, k, j> h = nax::sum<i>(x * y);
    nax::cuda::Array<float, k, j> d = nax::sum<i>(dx * dy);
    check_same(nax::cuda::to_host(d), h, tol);
    if (ni == 0)  // the identity, not only what the host says
      for (float v : nax::cuda::to_host(d)) CHECK(v == 0.f);
  }
  {  // two axes, mixed
    nax::Array<float, j> h = nax::sum<i, k>(nax::square(x));
    nax::cuda::Array<float, j> d = nax::sum<i, k>(nax::square(dx));
    check_same(nax::cuda::to_host(d), h, tol);
  }
  {  // all axes, mean (NaN when empty), prod
    nax::Array<float> h = nax::mean(x);
    nax::cuda::Array<float> d = nax::mean(dx);
    check_same(nax::cuda::to_host(d), h, tol);
    nax::Array<float, i, j> hp = nax::prod<k>(x * 0.01f + 1.f);
    nax::cuda::Array<float, i, j> dp = nax::prod<k>(dx * 0.01f + 1.f);
    check_same(nax::cuda::to_host(dp), hp, tol);
    if (nk == 0)
      for (float v : nax::cuda::to_host(dp)) CHECK(v == 1.f);
  }
  if (ni > 0 && nk > 0) {  // max/min need a non-empty axis; NaN propagates
    nax::Array<float, j, k> h = nax::max<i>(x) - nax::min<i>(x);
    nax::cuda::Array<float, j, k> d = nax::max<i>(dx) - nax::min<i>(dx);
    check_same(nax::cuda::to_host(d), h, 0.0);
    nax::Array<float, i, j> hl = nax::logsumexp<k>(x);
    nax::cuda::Array<float, i, j> dl = nax::logsumexp<k>(dx);
    check_same(nax::cuda::to_host(dl), hl, tol);
  }
}
}  // namespace

TEST_CASE("cuda: reductions with fused producers match the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 20; ++trial) reductions_match_host(random_extent(), random_extent(), random_extent());
}

// An empty reduced axis: no rows to fold, outputs that exist (the kept-innermost kernel with
// none of its rows, at 8 columns the vector path), or no outputs at all.
TEST_CASE("cuda: reductions over an empty axis give the identity (sum 0, prod 1, mean NaN)") {
  if (no_device()) return;
  const nax::index_t cases[][3] = {{0, 5, 8}, {0, 1, 129}, {0, 3, 1}, {4, 0, 8}, {3, 5, 0}, {0, 0, 0}};
  for (const auto& c : cases) {
    CAPTURE(c[0]);
    CAPTURE(c[1]);
    CAPTURE(c[2]);
    reductions_match_host(c[0], c[1], c[2]);
  }
}

TEST_CASE("cuda: integer and bool reductions are exact; item() of a device expression") {
  if (no_device()) return;
  auto x = random_array<int, i, j>({129, 65});
  auto m = random_array<bool, i, j>({129, 65});
  auto dx = nax::cuda::to_device(x);
  auto dm = nax::cuda::to_device(m);
  nax::Array<int, j> h = nax::sum<i>(x) + nax::max<i>(x);
  nax::cuda::Array<int, j> d = nax::sum<i>(dx) + nax::max<i>(dx);
  check_same(nax::cuda::to_host(d), h);
  nax::Array<std::int32_t, i> hb = nax::sum<j>(m);  // bool sums count in int32
  nax::cuda::Array<std::int32_t, i> db = nax::sum<j>(dm);
  check_same(nax::cuda::to_host(db), hb);
  CHECK(nax::sum(dx).item() == nax::sum(x).item());
  CHECK(nax::cuda::item(nax::min(dx)) == nax::min(x).item());
}

TEST_CASE("cuda: reductions read 16-byte lanes where aligned and agree with the host either way") {
  if (no_device()) return;
  // Rows starting 0, 1, 2 or 4 elements into buffers whose row stride is a multiple of 16
  // bytes, so that lanes are taken at offsets 0 and 4 for float and int and at 0 for bool, and
  // element-by-element reads elsewhere; rows with and without a tail after the last lane
  // group; enough rows that the full reduction is split into chunks that begin and end
  // mid-row (and, on a GPU of 38 SMs or more, sum<j> of the 1029-wide rows too), and the
  // kept-innermost one into chunks of whole rows.
  for (nax::index_t offset : {0, 1, 2, 4})
    for (nax::index_t n : {3, 64, 67, 1029}) {
      INFO("offset " << offset << ", row " << n);
      const nax::index_t w = (n + 4 + 15) / 16 * 16, r = 300;
      auto x = random_array<float, i, j>({r, w});
      auto xi = random_array<int, i, j>({r, w});
      auto m = random_array<bool, i, j>({r, w});
      auto dx = nax::cuda::to_device(x);
      auto dxi = nax::cuda::to_device(xi);
      auto dm = nax::cuda::to_device(m);
      auto part = [&](const auto& a) { return nax::slice<j>(a, offset, offset + n); };
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::sum<j>(part(dx)))), nax::eval(nax::sum<j>(part(x))), 1e-4);
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::sum<i>(part(dx)))), nax::eval(nax::sum<i>(part(x))), 1e-4);
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::max<i>(part(dx)))), nax::eval(nax::max<i>(part(x))), 0.0);
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::sum(part(dx) * 2.f))), nax::eval(nax::sum(part(x) * 2.f)), 1e-3);
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::sum<j>(part(dxi)))), nax::eval(nax::sum<j>(part(xi))));
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::sum<i>(part(dxi)))), nax::eval(nax::sum<i>(part(xi))));
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::sum<j>(part(dm)))), nax::eval(nax::sum<j>(part(m))));
      check_same(nax::cuda::to_host(nax::cuda::eval(nax::sum<i>(part(dm)))), nax::eval(nax::sum<i>(part(m))));
    }
}

TEST_CASE("cuda: a reduction used twice in one expression is computed once") {
  if (no_device()) return;
  auto x = random_array<float, i, j>({33, 17});
  auto dx = nax::cuda::to_device(x);
  auto hs = nax::sum<j>(x);
  auto ds = nax::sum<j>(dx);
  nax::Array<float, i, j> h = x - hs * hs / (hs * hs + 1.f);
  nax::cuda::Array<float, i, j> d = dx - ds * ds / (ds * ds + 1.f);
  check_same(nax::cuda::to_host(d), h, 1e-4);
}

TEST_CASE("cuda: dot (cuBLAS for float and double, a kernel for integers) matches the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 20; ++trial) {
    const nax::index_t nb = random_extent() % 5, ni = random_extent(), nj = random_extent(), nk = random_extent();
    auto x = random_array<float, b, i, j>({nb, ni, nj});
    auto y = random_array<float, j, b, k>({nj, nb, nk});
    auto dx = nax::cuda::to_device(x);
    auto dy = nax::cuda::to_device(y);
    {  // batch axis b, contracted j; y's layout needs packing
      nax::Array<float, b, i, k> h = nax::dot<j>(x, y);
      nax::cuda::Array<float, b, i, k> d = nax::dot<j>(dx, dy);
      check_same(nax::cuda::to_host(d), h, 1e-3);
    }
    {  // expression operands, result used in a fused expression, other destination order
      nax::Array<float, k, i, b> h = nax::dot<j>(x * 2.f, nax::exp(y)) + 1.f;
      nax::cuda::Array<float, k, i, b> d = nax::dot<j>(dx * 2.f, nax::exp(dy)) + 1.f;
      check_same(nax::cuda::to_host(d), h, 1e-3);
    }
    {  // two contracted axes
      nax::Array<float, i> h = nax::dot<b, j>(x, nax::sum<k>(y));
      nax::cuda::Array<float, i> d = nax::dot<b, j>(dx, nax::sum<k>(dy));
      check_same(nax::cuda::to_host(d), h, 1e-3);
    }
  }
  auto xd = random_array<double, i, j>({64, 33});
  auto yd = random_array<double, j, k>({33, 17});
  nax::Array<double, i, k> hd = nax::dot<j>(xd, yd);
  nax::Array<double, k, i> hdt = nax::dot<j>(nax::transpose<j, i>(xd), yd);
  auto dxd = nax::cuda::to_device(xd);
  auto dyd = nax::cuda::to_device(yd);
  nax::cuda::Array<double, i, k> dd = nax::dot<j>(dxd, dyd);
  nax::cuda::Array<double, k, i> ddt = nax::dot<j>(nax::transpose<j, i>(dxd), dyd);
  check_same(nax::cuda::to_host(dd), hd, 1e-12);
  check_same(nax::cuda::to_host(ddt), hdt, 1e-12);
  auto xi = random_array<int, i, j>({20, 30});
  auto yi = random_array<int, j, k>({30, 10});
  nax::Array<int, i, k> hi = nax::dot<j>(xi, yi);
  nax::cuda::Array<int, i, k> di = nax::dot<j>(nax::cuda::to_device(xi), nax::cuda::to_device(yi));
  check_same(nax::cuda::to_host(di), hi);
}
