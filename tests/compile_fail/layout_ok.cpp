// expect-compile
// The control of the layout, creation and reduction compositions' checks: each builder used as
// documented compiles (gather_layouts.hpp, creation.hpp, reduce_compositions.hpp).

#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(row);
NAX_AXIS(col);
NAX_AXIS(batch);

int main() {
  nax::Array<float, row, col> x({4, 3});
  nax::Array<float, row, col> update({2, 3});
  nax::Array<std::int32_t> start;
  nax::Array<float, row, col> a = nax::flip<row>(nax::roll<col>(x, 1)) + nax::tile<row>(nax::slice<row>(x, 0, 2), 2);
  nax::Array<float, row, col> b = nax::pad<row>(nax::repeat<row>(nax::slice<row>(x, 0, 1), 2), 1, 1, nax::pad_mode::reflect);
  nax::Array<float, row, col> c = nax::dynamic_update_slice<row>(x, update, start) + nax::pad<row>(update, 1, 1, 0.5f);
  nax::Array<float, row, col> d = nax::dynamic_slice<row>(nax::pad<row>(x, 2, 2), start, 4);
  nax::Array<float, row, col> e = nax::tril<row, col>(x, 1) + nax::triu<row, col>(x) + nax::eye<row, col>(4, 3);
  nax::Array<double, row, col> f = nax::tri<row, col, double>(4, 3) + nax::zeros_like(x) + nax::ones_like(x);
  nax::Array<float, row> g = nax::linspace<row>(0.0, 1.0, 4) + nax::norm<col>(x) + nax::norm<col>(x, nax::ord::inf) +
                             nax::norm<col>(x, nax::ord::one) + nax::nansum<col>(x) + nax::nanmean<col>(x);
  nax::Array<bool, col> h = nax::any<row>(x) && nax::all<row>(x);
  nax::Array<std::int64_t> k = nax::count_nonzero(x);
  nax::Array<float, row, col> scans = nax::cumsum<row>(x) + nax::cumprod<col>(x, true) + nax::cummax<row>(x) + nax::cummin<col>(x);
  nax::Array<std::int32_t, batch> starts({2});
  nax::Array<float, batch, col> per_member =
      nax::vmap<batch>([&](const auto& s) { return nax::sum<row>(nax::dynamic_slice<row>(x, s, 2)); })(starts);
  (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)k, (void)scans, (void)per_member;
}
