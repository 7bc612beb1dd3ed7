// CUDA backend: take, take_along, one_hot and the scatters against the host backend on random
// extents (0 and 1 included) and every index mode, a gather fused into an expression and a
// reduction, grad through take and scatter_add (the device's atomic scatter), and the checked
// mode's error.
#include "device_support.hpp"

#include <cstring>
#include <limits>
#include <string>

namespace {
NAX_AXIS(v);
NAX_AXIS(w);
NAX_AXIS(t);
NAX_AXIS(b);
using namespace nax_cuda_test;
using nax::index_t;

template <class... As>
nax::Array<int, As...> random_indices(const std::array<index_t, sizeof...(As)>& extents, index_t n) {
  nax::Array<int, As...> a(extents);
  std::uniform_int_distribution<int> d(static_cast<int>(-n - 2), static_cast<int>(n + 2));
  for (auto& x : a) x = d(rng());
  return a;
}
}  // namespace

TEST_CASE("cuda: take, take_along and one_hot match the host in every mode") {
  if (no_device()) return;
  const nax::index_mode modes[] = {nax::index_mode::clip, nax::index_mode::fill, nax::index_mode::wrap};
  for (int trial = 0; trial < 20; ++trial) {
    const index_t nv = random_extent() + 1, nw = random_extent(), nt = random_extent(), nb = random_extent();
    auto table = random_array<float, v, w>({nv, nw});
    auto tokens = random_indices<b, t>({nb, nt}, nv);
    auto dtable = nax::cuda::to_device(table);
    auto dtokens = nax::cuda::to_device(tokens);
    for (auto mode : modes) {
      nax::Array<float, t, w, b> h = nax::take<v>(table, tokens, mode) * 2.f + 1.f;
      nax::cuda::Array<float, t, w, b> d = nax::take<v>(dtable, dtokens, mode) * 2.f + 1.f;
      check_same(nax::cuda::to_host(d), h, 0.0);
      nax::Array<float, b> hs = nax::sum<t, w>(nax::take<v>(nax::exp(table), tokens, mode, 0.f));
      nax::cuda::Array<float, b> ds = nax::sum<t, w>(nax::take<v>(nax::exp(dtable), dtokens, mode, 0.f));
      check_same(nax::cuda::to_host(ds), hs, 1e-5);
    }
    auto logits = random_array<double, b, v>({nb, nv});
    auto labels = random_indices<b>({nb}, nv);
    nax::Array<double, b> h = nax::take_along<v>(nax::log_softmax<v>(logits), labels);
    nax::cuda::Array<double, b> d = nax::take_along<v>(nax::log_softmax<v>(nax::cuda::to_device(logits)),
                                                       nax::cuda::to_device(labels));
    check_same(nax::cuda::to_host(d), h, 1e-12);
    nax::Array<float, b, v> ho = nax::one_hot<v>(labels, nv);
    nax::cuda::Array<float, b, v> dn = nax::one_hot<v>(nax::cuda::to_device(labels), nv);
    check_same(nax::cuda::to_host(dn), ho, 0.0);
  }
}

TEST_CASE("cuda: scatter_add, scatter_max, scatter_min and scatter match the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 20; ++trial) {
    const index_t nv = random_extent() + 1, nw = random_extent(), nt = random_extent();
    auto x = random_array<float, v, w>({nv, nw});
    auto idx = random_indices<t>({nt}, nv);
    auto upd = random_array<float, t, w>({nt, nw});
    auto ix = random_array<int, v, w>({nv, nw});
    auto iupd = random_array<int, w, t>({nw, nt});
    auto dx = nax::cuda::to_device(x);
    auto didx = nax::cuda::to_device(idx);
    auto dupd = nax::cuda::to_device(upd);
    {
      nax::Array<float, v, w> h = nax::scatter_add<v>(x, idx, upd, nax::index_mode::fill);
      nax::cuda::Array<float, v, w> d = nax::scatter_add<v>(dx, didx, dupd, nax::index_mode::fill);
      check_same(nax::cuda::to_host(d), h, 1e-5);  // atomics add in another order
    }
    {
      nax::Array<float, v, w> h = nax::scatter_max<v>(x, idx, upd);
      nax::cuda::Array<float, v, w> d = nax::scatter_max<v>(dx, didx, dupd);
      check_same(nax::cuda::to_host(d), h, 0.0);
    }
    {
      nax::Array<int, w, v> h = nax::scatter_min<v>(ix, idx, iupd, nax::index_mode::wrap);
      nax::cuda::Array<int, w, v> d =
          nax::scatter_min<v>(nax::cuda::to_device(ix), didx, nax::cuda::to_device(iupd), nax::index_mode::wrap);
      check_same(nax::cuda::to_host(d), h);
    }
    {  // distinct indices: the set is deterministic
      nax::Array<int, t> distinct({std::min<index_t>(nt, nv)});
      for (index_t q = 0; q < distinct.size(); ++q) distinct.data()[q] = static_cast<int>(nv - 1 - q);
      auto u = random_array<float, t, w>({distinct.size(), nw});
      nax::Array<float, v, w> h = nax::scatter<v>(x, distinct, u);
      nax::cuda::Array<float, v, w> d = nax::scatter<v>(dx, nax::cuda::to_device(distinct), nax::cuda::to_device(u));
      check_same(nax::cuda::to_host(d), h, 0.0);
    }
  }
}

TEST_CASE("cuda: grad through take and scatter_add matches the host") {
  if (no_device()) return;
  for (int trial = 0; trial < 10; ++trial) {
    const index_t nv = random_extent() + 1, nw = random_extent(), nt = random_extent();
    auto table = random_array<double, v, w>({nv, nw});
    auto tokens = random_indices<t>({nt}, nv);
    auto upd = random_array<double, t, w>({nt, nw});
    auto loss = [&](const auto& tab, const auto& tok, const auto& u) {
      return nax::sum(nax::square(nax::take<v>(tab, tok))) + nax::sum(nax::sin(nax::scatter_add<v>(tab, tok, u)));
    };
    auto h = nax::grad<0, 1>([&](const auto& tab, const auto& u) { return loss(tab, tokens, u); })(table, upd);
    auto dtokens = nax::cuda::to_device(tokens);
    auto d = nax::grad<0, 1>([&](const auto& tab, const auto& u) { return loss(tab, dtokens, u); })(
        nax::cuda::to_device(table), nax::cuda::to_device(upd));
    check_same(nax::cuda::to_host(std::get<0>(d)), std::get<0>(h), 1e-12);
    check_same(nax::cuda::to_host(std::get<1>(d)), std::get<1>(h), 1e-12);
  }
}

TEST_CASE("cuda: index_mode::checked names the index out of range") {
  if (no_device()) return;
  nax::Array<float, v, w> table({3, 2});
  for (auto& x : table) x = 1.f;
  nax::Array<int, t> tokens({4});
  const int values[] = {0, 2, -3, 3};
  for (int q = 0; q < 4; ++q) tokens.data()[q] = values[q];
  auto dtable = nax::cuda::to_device(table);
  auto dtokens = nax::cuda::to_device(tokens);
  try {
    nax::cuda::Array<float, t, w> d = nax::take<v>(dtable, dtokens, nax::index_mode::checked);
    FAIL("no error");
  } catch (const nax::argument_error& e) {
    CHECK(std::string(e.what()).find("index 3 at (t=3) is out of range for axis 'v' of extent 3") != std::string::npos);
  }
}

TEST_CASE("cuda: sort, argsort, top_k, searchsorted and quantile match the host (ties, NaNs, strided lines)") {
  if (no_device()) return;
  for (int trial = 0; trial < 12; ++trial) {
    const index_t nv = random_extent(), nw = random_extent();
    auto x = random_array<float, v, w>({nv, nw});
    for (auto& e : x) e = std::round(e * 2.f);  // ties
    if (x.size() > 0) x.data()[0] = std::numeric_limits<float>::quiet_NaN();
    auto dx = nax::cuda::to_device(x);
    for (bool descending : {false, true}) {
      nax::Array<float, v, w> h = nax::sort<v>(x, descending);  // v is the outer axis: strided lines
      nax::cuda::Array<float, v, w> d = nax::sort<v>(dx, descending);
      check_same(nax::cuda::to_host(d), h, 0.0);
      nax::Array<index_t, w, v> hi = nax::argsort<w>(x, descending);
      nax::cuda::Array<index_t, w, v> di = nax::argsort<w>(dx, descending);
      check_same(nax::cuda::to_host(di), hi, 0.0);
    }
    const index_t k = nw / 2;
    auto [hv, hk] = nax::top_k<w, t>(x, k);
    auto [dv, dk] = nax::top_k<w, t>(dx, k);
    check_same(nax::cuda::to_host(nax::cuda::Array<float, v, t>(dv)), nax::Array<float, v, t>(hv), 0.0);
    check_same(nax::cuda::to_host(nax::cuda::Array<index_t, t, v>(dk)), nax::Array<index_t, t, v>(hk), 0.0);
    nax::Array<float, v, w> sorted = nax::sort<w>(x);
    auto values = random_array<double, b, v>({random_extent(), nv});
    for (auto side : {nax::side::left, nax::side::right}) {
      nax::Array<index_t, v, b> hs = nax::searchsorted<w>(sorted, values, side);
      nax::cuda::Array<index_t, v, b> ds = nax::searchsorted<w>(nax::cuda::to_device(sorted), nax::cuda::to_device(values), side);
      check_same(nax::cuda::to_host(ds), hs, 0.0);
    }
    if (nw > 0) {
      nax::Array<float, v> hq = nax::quantile<w>(x, 0.3) + nax::median<w>(x);
      nax::cuda::Array<float, v> dq = nax::quantile<w>(dx, 0.3) + nax::median<w>(dx);
      check_same(nax::cuda::to_host(dq), hq, 1e-6);
    }
    auto g = random_array<double, v, w>({nv, nw});
    auto loss = [](const auto& z) { return nax::sum(nax::square(nax::sort<w>(z, true)) * nax::axis_index<w, double>(nax::extent<w>(z))); };
    check_same(nax::cuda::to_host(nax::grad(loss)(nax::cuda::to_device(g))), nax::grad(loss)(g), 1e-12);
  }
}

TEST_CASE("cuda: long lines with signed zeros and NaN payloads sort bit for bit as on the host; top_k of few") {
  if (no_device()) return;
  for (index_t n : {index_t(3000), index_t(70001)}) {  // the host's radix paths; one line and several
    for (index_t lines : {index_t(1), index_t(3)}) {
      nax::Array<float, v, w> x({lines, n});
      std::uniform_int_distribution<int> d(-400, 400);
      for (auto& e : x) e = float(d(rng())) / 8.f;
      const float specials[] = {-0.f, 0.f, -std::numeric_limits<float>::quiet_NaN(), std::nanf("7"),
                                std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
      for (index_t k = 0; k < x.size(); k += 7) x.data()[k] = specials[(k / 7) % 6];
      auto dx = nax::cuda::to_device(x);
      for (bool descending : {false, true}) {
        nax::Array<float, v, w> h = nax::sort<w>(x, descending);
        nax::Array<float, v, w> d_sorted = nax::cuda::to_host(nax::cuda::Array<float, v, w>(nax::sort<w>(dx, descending)));
        CHECK(std::memcmp(h.data(), d_sorted.data(), sizeof(float) * std::size_t(h.size())) == 0);  // bit for bit
        nax::Array<index_t, v, w> hi = nax::argsort<w>(x, descending);
        nax::cuda::Array<index_t, v, w> di = nax::argsort<w>(dx, descending);
        check_same(nax::cuda::to_host(di), hi, 0.0);
      }
      nax::Array<index_t, v, t> hk = nax::top_k<w, t>(x, 40).indices;  // the host selects (k <= n / 8)
      nax::cuda::Array<index_t, v, t> dk = nax::top_k<w, t>(dx, 40).indices;
      check_same(nax::cuda::to_host(dk), hk, 0.0);
    }
  }
}
