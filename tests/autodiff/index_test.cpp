// Gradients through take, take_along and scatter_add against central finite differences (every
// index mode, duplicates, a shared axis, the cross-entropy with integer labels), per-member
// gradients in vmap(grad(f)) with mapped indices, jvp against grad (the dot-product test),
// grad(grad(f)) through take, and the scatters that have no derivative.
#include "finite_difference.hpp"

#include <string>

namespace {
NAX_AXIS(v);
NAX_AXIS(w);
NAX_AXIS(t);
NAX_AXIS(b);
using nax::index_mode;
using nax::index_t;

using nax_test::random_indices;

// A rank-0 double array holding value.
nax::Array<double> scalar(double value) { return nax::full<double>(value); }
// grad(grad(f)) at 0.7 against central differences of grad(f); returns the differences.
template <class F>
double check_second_derivative(const F& f) {
  auto first = [&](double at) { return nax::grad(f)(scalar(at)).item(); };
  const double h = 1e-5, fd = (first(0.7 + h) - first(0.7 - h)) / (2 * h);
  CHECK(nax::grad(nax::grad(f))(scalar(0.7)).item() == doctest::Approx(fd).epsilon(1e-7));
  return fd;
}
}  // namespace

TEST_CASE("grad through take in every mode (duplicates, out-of-range indices) against finite differences") {
  nax_test::random_source rng(1801);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t nv = 1 + rng.integer(0, 4), nw = 1 + rng.integer(0, 2), nt = rng.integer(1, 6);
    auto table = nax_test::random_array<double, v, w>(rng, {nv, nw});
    auto tokens = random_indices<t>(rng, {nt}, nv);
    auto weights = nax_test::random_array<double, w, t>(rng, {nw, nt});
    for (index_mode mode : {index_mode::clip, index_mode::fill, index_mode::wrap}) {
      INFO("v=" << nv << " w=" << nw << " t=" << nt << " mode " << int(mode));
      auto loss = [&](const auto& tab) {
        return nax::sum(nax::tanh(nax::take<v>(tab * 1.5, tokens, mode, 0.0)) * weights);
      };
      CHECK(nax_ad_test::check_fd(loss, table) < 1e-7);
    }
  }
}

TEST_CASE("grad of a cross-entropy with integer labels (take_along of log_softmax) against finite differences") {
  nax_test::random_source rng(1802);
  for (int trial = 0; trial < 5; ++trial) {
    const index_t nb = 1 + rng.integer(0, 3), nv = 1 + rng.integer(0, 5);
    auto logits = nax_test::random_array<double, b, v>(rng, {nb, nv}, -3.0, 3.0);
    nax::Array<int, b> labels({nb});
    for (auto& l : labels) l = static_cast<int>(rng.integer(0, nv - 1));
    auto loss = [&](const auto& z) { return -nax::mean(nax::take_along<v>(nax::log_softmax<v>(z), labels)); };
    CHECK(nax_ad_test::check_fd(loss, logits) < 1e-7);
    // softmax - one_hot, divided by the batch: the closed form
    auto g = nax::grad(loss)(logits);
    nax::Array<double, b, v> closed = (nax::softmax<v>(logits) - nax::one_hot<v, double>(labels, nv)) / double(nb);
    for (index_t q = 0; q < g.size(); ++q) CHECK(g.data()[q] == doctest::Approx(closed.data()[q]).epsilon(1e-12));
  }
}

TEST_CASE("grad of scatter_add with respect to the operand and the updates against finite differences") {
  nax_test::random_source rng(1803);
  for (int trial = 0; trial < 6; ++trial) {
    const index_t nv = 1 + rng.integer(0, 4), nw = 1 + rng.integer(0, 2), nt = rng.integer(1, 5);
    auto x = nax_test::random_array<double, w, v>(rng, {nw, nv});
    auto upd = nax_test::random_array<double, t, w>(rng, {nt, nw});
    auto idx = random_indices<t>(rng, {nt}, nv);
    auto weights = nax_test::random_array<double, v, w>(rng, {nv, nw});
    for (index_mode mode : {index_mode::clip, index_mode::fill}) {
      auto loss = [&](const auto& a, const auto& u) {
        return nax::sum(nax::sin(nax::scatter_add<v>(a * a, idx, u * 2.0, mode)) * weights);
      };
      auto [gx, gu] = nax::grad<0, 1>(loss)(x, upd);
      CHECK(nax_ad_test::fd_error([&] { return loss(x, upd).item(); }, x, gx) < 1e-7);
      CHECK(nax_ad_test::fd_error([&] { return loss(x, upd).item(); }, upd, gu) < 1e-7);
    }
  }
}

TEST_CASE("vmap(grad(f)) with mapped tokens: a table gradient per member") {
  nax_test::random_source rng(1804);
  const index_t nv = 4, nw = 3, nb = 3, nt = 5;
  auto table = nax_test::random_array<double, v, w>(rng, {nv, nw});
  auto tokens = random_indices<b, t>(rng, {nb, nt}, nv);
  auto member_loss = [](const auto& tab, const auto& tok) { return nax::sum(nax::square(nax::take<v>(tab, tok))); };
  nax::Array<double, b, v, w> per =
      nax::vmap<b>(nax::grad(member_loss), nax::in_axes(nax::none, nax::mapped))(table, tokens);
  for (index_t m = 0; m < nb; ++m) {
    nax::Array<int, t> own({nt});
    for (index_t q = 0; q < nt; ++q) own(q) = tokens(m, q);
    auto g = nax::grad([&](const auto& tab) { return member_loss(tab, own); })(table);
    for (index_t r = 0; r < nv; ++r)
      for (index_t c = 0; c < nw; ++c) CHECK(per(m, r, c) == doctest::Approx(g(r, c)).epsilon(1e-12));
  }
  // the sum over members, when the loss itself sums them
  auto total = nax::grad([&](const auto& tab) {
    return nax::sum(nax::vmap<b>(member_loss, nax::in_axes(nax::none, nax::mapped))(tab, tokens));
  })(table);
  nax::Array<double, v, w> summed = nax::sum<b>(per);
  for (index_t q = 0; q < total.size(); ++q) CHECK(total.data()[q] == doctest::Approx(summed.data()[q]).epsilon(1e-12));
}

TEST_CASE("jvp through take and scatter_add agrees with grad (the dot-product test)") {
  nax_test::random_source rng(1805);
  const index_t nv = 5, nw = 3, nt = 7;
  auto table = nax_test::random_array<double, v, w>(rng, {nv, nw});
  auto dir = nax_test::random_array<double, v, w>(rng, {nv, nw});
  auto tokens = random_indices<t>(rng, {nt}, nv);
  auto upd = nax_test::random_array<double, t, w>(rng, {nt, nw});
  auto f = [&](const auto& tab) {
    return nax::sum(nax::exp(nax::take<v>(tab, tokens, index_mode::wrap) * 0.5)) +
           nax::sum(nax::square(nax::scatter_add<v>(tab, tokens, upd)));
  };
  auto [value, tangent] = nax::jvp(f, nax::tuple(table), nax::tuple(dir));
  auto g = nax::grad(f)(table);
  double dot = 0;
  for (index_t q = 0; q < g.size(); ++q) dot += g.data()[q] * dir.data()[q];
  CHECK(tangent.item() == doctest::Approx(dot).epsilon(1e-12));
  CHECK(value.item() == doctest::Approx(f(table).item()).epsilon(1e-14));
}

TEST_CASE("grad(grad(f)) through take against differences of grad(f)") {
  nax::Array<double, v, w> table({3, 2});
  for (index_t q = 0; q < 6; ++q) table.data()[q] = 0.3 * double(q) - 0.5;
  nax::Array<int, t> tokens({4});
  const int tv[] = {0, 2, 2, 1};
  for (index_t q = 0; q < 4; ++q) tokens(q) = tv[q];
  auto f = [&](const auto& s) { return nax::sum(nax::pow(nax::take<v>(s * table, tokens), 3.0)); };
  check_second_derivative(f);
  const auto s = scalar(0.7);
  // a strided slice scatters its cotangent into memory: loud, not a silent 0
  auto g = [&](const auto& q) { return nax::sum(nax::pow(nax::slice<v>(q * table, 0, 3, 2), 3.0)); };
  CHECK_THROWS_WITH_AS(nax::grad(nax::grad(g))(s),
                       doctest::Contains("a slice, split or psum_scatter of a replicated value lies between the inner variable"),
                       nax::argument_error);
}

TEST_CASE("take<A>(x, i) with a C++ index (a relayout): grad, vmap(grad), jvp and grad(grad)") {
  nax_test::random_source rng(1806);
  for (int trial = 0; trial < 6; ++trial) {
    const index_t nv = rng.nonzero_extent(4), nw = rng.extent(3), nb = rng.extent(3);
    const index_t i = rng.integer(0, nv - 1), j = rng.integer(0, nv - 1);
    INFO("v=" << nv << " w=" << nw << " b=" << nb << " i=" << i << " j=" << j);
    auto x = nax_test::random_array<double, w, v>(rng, {nw, nv});  // v inner in memory
    auto y = nax_test::random_array<double, b, w>(rng, {nb, nw});
    // Two positions, possibly the same one: their cotangents add up at x.
    auto loss = [&](const auto& q) {
      return nax::sum(nax::tanh(nax::take<v>(q, i) * 1.5) * nax::take<v>(q * q, j));
    };
    auto g = nax::grad(loss)(x);
    static_assert(std::is_same_v<decltype(g), nax::Array<double, w, v>>);
    CHECK(nax_ad_test::fd_error([&] { return loss(x).item(); }, x, g) < 1e-7);
    for (index_t k = 0; k < nw; ++k)
      for (index_t p = 0; p < nv; ++p)
        if (p != i && p != j) CHECK(g(k, p) == 0.0);  // (nothing reaches the other positions)
    // Per-member: each b's loss reads row i of x.
    nax::Array<double, b, w, v> per = nax::vmap<b>([&](const auto& yb) {
      return nax::grad([&](const auto& q) { return nax::sum(nax::sin(nax::take<v>(q, i) * yb)); })(x);
    })(y);
    for (index_t m = 0; m < nb; ++m)
      for (index_t k = 0; k < nw; ++k)
        for (index_t p = 0; p < nv; ++p)
          CHECK(per(m, k, p) == doctest::Approx(p == i ? std::cos(x(k, i) * y(m, k)) * y(m, k) : 0.0).epsilon(1e-13));
    // jvp: the tangent's slice, against grad (the dot-product test).
    auto dx = nax_test::random_array<double, w, v>(rng, {nw, nv});
    auto [value, tangent] = nax::jvp(loss, std::tuple(x), std::tuple(dx));
    CHECK(tangent.item() == doctest::Approx(nax::sum(g * dx).item()).epsilon(1e-12));
    CHECK(value.item() == doctest::Approx(loss(x).item()).epsilon(1e-14));
  }
  // Its cotangent is a lazy select, which grad(grad(f)) differentiates again: against central
  // differences of the first derivative.
  nax::Array<double, v, w> table({3, 2});
  for (index_t q = 0; q < 6; ++q) table.data()[q] = 0.3 * double(q) - 0.5;
  auto f = [&](const auto& q) { return nax::sum(nax::pow(nax::take<v>(q * table, 1), 3.0)); };
  CHECK(std::abs(check_second_derivative(f)) > 1e-3);
}

TEST_CASE("scatter, scatter_max and scatter_min have no derivative: grad raises, naming them") {
  nax::Array<double, v> x({3});
  nax::Array<double, t> u({2});
  nax::Array<int, t> idx({2});
  for (index_t q = 0; q < 3; ++q) x(q) = double(q);
  u(0) = 1, u(1) = 2, idx(0) = 0, idx(1) = 2;
  CHECK_THROWS_WITH_AS(nax::grad([&](const auto& a) { return nax::sum(nax::scatter_max<v>(a, idx, u)); })(x),
                       doctest::Contains("scatter, scatter_max or scatter_min (only scatter_add has a gradient"),
                       nax::argument_error);
  CHECK_THROWS_WITH_AS(nax::grad([&](const auto& q) { return nax::sum(nax::scatter<v>(x, idx, q)); })(u),
                       doctest::Contains("scatter, scatter_max or scatter_min"), nax::argument_error);
}

namespace {
NAX_AXIS(data);
NAX_AXIS(model);
}  // namespace

TEST_CASE("grad inside xmap on a 2 x 2 mesh: an embedding sharded over model, tokens over data") {
  // The table's width is split over `model` (each device holds its columns), the batch of token
  // rows over `data`; per-member gradients pmean'd over the batch equal the one-device gradient
  // of the mean loss.
  nax_test::random_source rng(1806);
  const index_t nv = 6, nw = 4, nb = 4, nt = 3;
  auto table = nax_test::random_array<double, v, w>(rng, {nv, nw});
  auto proj = nax_test::random_array<double, w>(rng, {nw});
  auto tokens = random_indices<b, t>(rng, {nb, nt}, nv);
  auto y = nax_test::random_array<double, b, t>(rng, {nb, nt});
  auto per_example = [](const auto& p, const auto& tok, const auto& target) {
    auto e = nax::take<v>(std::get<0>(p), tok);
    return nax::sum(nax::square(nax::tanh(nax::psum<w>(e * std::get<1>(p))) - target));
  };
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  auto [gt, gp] = nax::xmap<nax::bind<b, data>, nax::bind<w, model>>([&](const auto& p, const auto& tok, const auto& target) {
    auto g = nax::grad(per_example)(p, tok, target);
    return nax::tree_map([](const auto& gi) { return nax::pmean<b>(gi); }, g);
  }, mesh)(nax::tuple(table, proj), tokens, y);
  auto whole = [&](const auto& p) {
    auto e = nax::take<v>(std::get<0>(p), tokens);
    return nax::mean(nax::sum<t>(nax::square(nax::tanh(nax::sum<w>(e * std::get<1>(p))) - y)));
  };
  auto g = nax::grad(whole)(nax::tuple(table, proj));
  nax::Array<double, v, w> gt_host = gt;
  nax::Array<double, w> gp_host = gp;
  for (index_t q = 0; q < gt_host.size(); ++q)
    CHECK(gt_host.data()[q] == doctest::Approx(std::get<0>(g).data()[q]).epsilon(1e-12));
  for (index_t q = 0; q < gp_host.size(); ++q)
    CHECK(gp_host.data()[q] == doctest::Approx(std::get<1>(g).data()[q]).epsilon(1e-12));
}
