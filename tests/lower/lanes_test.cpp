// Lanes (lower/lanes.hpp): the reads the CUDA elementwise kernel makes with vector loads.
// On the host, get_lanes<L>(i) reads element by element, so its values are checked here
// against get<true>(i + j), on random extents (size 1 included), axis orders, broadcasts,
// mixed types, samplers and axis_index; and lanes_fit, which decides whether the device may
// use vector loads, against the alignment each leaf's rows really have.
#include <nax/nax.hpp>
#include <nax/random/random.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);

using nax::index_t;

template <class A>
void fill(A& a, std::mt19937& g) {
  std::uniform_int_distribution<int> d(-50, 50);
  for (index_t q = 0; q < a.size(); ++q) a.data()[q] = static_cast<typename A::value_type>(d(g));
}

// x lowered with loop order L (the innermost last), then folded as run_elementwise folds.
template <class L, class X>
auto lowered(const X& x, nax::detail::host::context& ctx, std::array<index_t, L::size>& extents) {
  const auto e = nax::detail::as_expr(x);
  using EA = typename std::remove_cvref_t<decltype(e)>::axes_type;
  extents = nax::detail::extents_by_name<L>(e);
  auto ev = nax::detail::lower<nax::detail::last_t<L>>(e, nax::detail::identity_placement<EA, L>(), ctx);
  nax::detail::fold_inner_axes(ev, extents, 0, static_cast<std::array<index_t, L::size>*>(nullptr));
  return ev;
}

// Every group of Lanes lanes of every row equals Lanes calls of get<true>. Only where
// Unit holds, as in the kernel: folding can leave a broadcast leaf with stride 0 along the
// merged axis, and then the kernel reads element by element. Counts the cases checked.
int lanes_checked = 0;
template <int Lanes, class Ev, std::size_t N>
void check_lanes_match_elements(Ev ev, const std::array<index_t, N>& extents) {
  const index_t n = extents[N - 1];
  if (!ev.unit_inner() || n < Lanes) return;
  ++lanes_checked;
  index_t rows = 1;
  for (std::size_t q = 0; q + 1 < N; ++q) rows *= extents[q];
  for (index_t r = 0; r < rows; ++r) {
    std::array<index_t, N> idx{};
    index_t rest = r;
    for (std::size_t q = N - 1; q-- > 0;) idx[q] = rest % extents[q], rest /= extents[q];
    ev.set_row(idx.data());
    for (index_t g = 0; g + Lanes <= n; g += Lanes) {
      const auto got = ev.template get_lanes<Lanes>(g);
      for (int l = 0; l < Lanes; ++l) CHECK(got.v[l] == ev.template get<true>(g + l));
    }
  }
}

}  // namespace

TEST_CASE("lanes equal element reads: leaves, broadcasts, mixed types, samplers, indices") {
  std::mt19937 g(31);
  std::uniform_int_distribution<index_t> extent(1, 19);
  lanes_checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const index_t ni = extent(g), nj = extent(g), nk = trial % 4 == 0 ? 1 : extent(g);
    INFO("extents " << ni << " x " << nj << " x " << nk);
    nax::Array<float, i, j, k> a({ni, nj, nk});
    nax::Array<double, k> b({nk});
    nax::Array<int, j, i> t({nj, ni});
    nax::Array<bool, i, j, k> m({ni, nj, nk});
    fill(a, g), fill(b, g), fill(t, g), fill(m, g);
    nax::detail::host::context ctx;
    const auto expression = nax::where(m, a * 2.f + b, nax::cast<double>(t)) -
                            nax::cast<double>(nax::axis_index<k>(nk)) + nax::random::uniform<i, j, k>(
                                                                            nax::random::key(7), {ni, nj, nk});
    {
      std::array<index_t, 3> ext{};
      // t does not move along k (broadcast); the sampler's counter and axis_index do.
      auto ev = lowered<nax::axes<i, j, k>>(expression, ctx, ext);
      check_lanes_match_elements<2>(ev, ext);
      check_lanes_match_elements<4>(ev, ext);
      check_lanes_match_elements<16>(ev, ext);
    }
    {
      // The same with every leaf contiguous along the innermost axis: always on the lanes path.
      std::array<index_t, 3> ext{};
      auto ev = lowered<nax::axes<i, j, k>>(a * 2.f + b - nax::cast<float>(m), ctx, ext);
      check_lanes_match_elements<4>(ev, ext);
      check_lanes_match_elements<8>(ev, ext);
      // Loop order (j, k, i): a and m move along i with stride nj * nk, not 1.
      std::array<index_t, 3> ext2{};
      auto strided = lowered<nax::axes<j, k, i>>(a * 2.f + b, ctx, ext2);
      CHECK(strided.unit_inner() == (ni == 1 || nj * nk == 1));
      // t read along its contiguous i, broadcast over k.
      std::array<index_t, 3> ext3{};
      auto broadcast = lowered<nax::axes<k, j, i>>(t + b, ctx, ext3);
      check_lanes_match_elements<4>(broadcast, ext3);
    }
  }
  CHECK(lanes_checked >= 60);  // most shapes take the lanes path
}

TEST_CASE("lanes_fit follows each contiguous leaf's alignment, row by row") {
  nax::detail::host::context ctx;
  nax::Array<float, i, j> a({6, 16});  // 64-byte aligned, rows of 64 bytes
  nax::Array<double, j> b({16});
  nax::Array<float, j> c({17});
  std::array<index_t, 2> ext{};
  std::array<index_t, 1> ext1{};
  // Aligned rows: 16-byte vectors of 4 floats (and 4 doubles in 32 bytes) fit.
  CHECK(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(a + b, ctx, ext)));
  // A slice starting one float in: misaligned by 4 bytes for every L > 1.
  CHECK_FALSE(nax::detail::lanes_fit<4>(lowered<nax::axes<j>>(nax::slice<j>(c, 1, 17) + 1.f, ctx, ext1)));
  CHECK_FALSE(nax::detail::lanes_fit<2>(lowered<nax::axes<j>>(nax::slice<j>(c, 1, 17) + 1.f, ctx, ext1)));
  // Starting four floats in: aligned to 16 bytes again.
  CHECK(nax::detail::lanes_fit<4>(lowered<nax::axes<j>>(nax::slice<j>(c, 4, 16) + 1.f, ctx, ext1)));
  // Two floats in: 8-byte alignment serves 2 lanes, not 4.
  CHECK(nax::detail::lanes_fit<2>(lowered<nax::axes<j>>(nax::slice<j>(c, 2, 16) + 1.f, ctx, ext1)));
  CHECK_FALSE(nax::detail::lanes_fit<4>(lowered<nax::axes<j>>(nax::slice<j>(c, 2, 16) + 1.f, ctx, ext1)));
  // Rows of 5 floats: the first row is aligned, the second not (20 bytes on), so no lanes;
  // unless the rows fold into one, which a contiguous array's do.
  nax::Array<float, i, j> odd({3, 5});
  nax::Array<float, i, j> wide({3, 10});
  nax::ArrayView<const float, i, j> every_other_row_half(wide.data(), {3, 5}, {10, 1});  // rows 40 bytes apart
  nax::ArrayView<const float, i, j> rows_of_five(wide.data(), {2, 5}, {5, 1});
  CHECK(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(odd * 2.f, ctx, ext)));  // folded: one row of 15
  CHECK(ext[1] == 15);
  CHECK_FALSE(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(every_other_row_half * 2.f, ctx, ext)));
  CHECK(ext[1] == 5);  // does not fold (rows 10 apart, 5 long)
  CHECK(nax::detail::lanes_fit<2>(lowered<nax::axes<i, j>>(every_other_row_half * 2.f, ctx, ext)));
  CHECK(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(rows_of_five * 2.f, ctx, ext)));  // folds to 10
  // A leaf that does not move along the innermost axis reads one value per row: no condition.
  nax::Array<float, i> column({7});
  CHECK(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(a + nax::slice<i>(column, 1, 7), ctx, ext)));
  CHECK_FALSE(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(nax::slice<j>(a, 1, 5) + column(0), ctx, ext)));
  // Reversed rows (a negative outer stride of 16 floats) stay aligned; of 5 floats they do not.
  nax::ArrayView<const float, i, j> reversed(a.data() + 5 * 16, {6, 16}, {-16, 1});
  CHECK(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(reversed * 1.f, ctx, ext)));
  nax::ArrayView<const float, i, j> reversed_odd(odd.data() + 2 * 5, {3, 5}, {-5, 1});
  CHECK_FALSE(nax::detail::lanes_fit<4>(lowered<nax::axes<i, j>>(reversed_odd * 1.f, ctx, ext)));
  // The output's own check (run_elementwise's) uses the same arithmetic.
  std::array<index_t, 2> strides{5, 1};
  CHECK_FALSE(nax::detail::lanes_aligned<16>(odd.data(), 0, strides, 1));
  strides = {8, 1};
  CHECK(nax::detail::lanes_aligned<16>(odd.data(), 0, strides, 1));
  CHECK_FALSE(nax::detail::lanes_aligned<16>(odd.data(), 1, strides, 1));
}
