// expr/index.hpp against loops written here: take (an index array with its own axes, one
// sharing an axis with the source, an expression as source and as index), take_along,
// one_hot, scatter_add/scatter/scatter_max/scatter_min, in every index mode, on random
// extents (0 and 1 included) and axis orders; a gather into its own source; mapped axes
// inside vmap; and the errors (checked mode, extents, an empty axis).
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(v);
NAX_AXIS(w);
NAX_AXIS(t);
NAX_AXIS(b);
using nax::index_mode;
using nax::index_t;

// The position raw names along an axis of extent n under mode (-1: none), as JAX defines it:
// Python's negative indices, then clamping (clip), a fill value (fill), or modulo (wrap).
index_t reference_position(long long raw, index_t n, index_mode mode) {
  if (mode == index_mode::wrap) return static_cast<index_t>(((raw % n) + n) % n);
  if (raw < 0) raw += n;
  if (raw >= 0 && raw < n) return static_cast<index_t>(raw);
  if (mode == index_mode::fill) return -1;
  return raw < 0 ? 0 : n - 1;
}

using nax_test::random_indices;

const index_mode all_modes[] = {index_mode::clip, index_mode::fill, index_mode::wrap};
}  // namespace

TEST_CASE("take: an index array with its own axes (an embedding lookup), every mode, both layouts") {
  nax_test::random_source rng(1701);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t nv = rng.nonzero_extent(6), nw = rng.extent(4), nt = rng.extent(5), nb = rng.extent(3);
    auto table = nax_test::random_array<float, v, w>(rng, {nv, nw});
    nax::Array<float, w, v> transposed = nax::transpose<w, v>(table);
    auto tokens = random_indices<b, t>(rng, {nb, nt}, nv);
    for (index_mode mode : all_modes) {
      INFO("extents v=" << nv << " w=" << nw << " t=" << nt << " b=" << nb << " mode " << int(mode));
      auto expected = [&](const nax_test::index_map& at) {
        const index_t k = reference_position(nax_test::at(tokens, at), nv, mode);
        if (k < 0) return std::numeric_limits<float>::quiet_NaN();
        return nax_test::at(table, {{"v", k}, {"w", at.at("w")}});
      };
      nax::Array<float, b, t, w> a = nax::take<v>(table, tokens, mode);
      nax_test::check_all(a, expected);
      nax::Array<float, w, t, b> c = nax::take<v>(transposed, tokens, mode);  // strided source, output order
      nax_test::check_all(c, expected);
      // fused into an expression, and a reduction over it
      nax::Array<float, t, b, w> d = nax::take<v>(table, tokens, mode, -1.f) * 2.f + 1.f;
      nax_test::check_all(d, [&](const nax_test::index_map& at) {
        const index_t k = reference_position(nax_test::at(tokens, at), nv, mode);
        return 2.f * (k < 0 ? -1.f : nax_test::at(table, {{"v", k}, {"w", at.at("w")}})) + 1.f;
      });
    }
  }
}

TEST_CASE("take: a shared axis picks per position; expressions as source and as index") {
  nax_test::random_source rng(1702);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t nv = rng.nonzero_extent(6), nb = rng.extent(4), nt = rng.extent(4);
    auto x = nax_test::random_array<double, b, v>(rng, {nb, nv});
    auto idx = random_indices<t, b>(rng, {nt, nb}, nv);
    INFO("extents v=" << nv << " b=" << nb << " t=" << nt);
    // idx shares b with x: each b reads its own row
    nax::Array<double, t, b> a = nax::take<v>(nax::exp(x), idx + 1);
    nax_test::check_all(a, [&](const nax_test::index_map& at) {
      const index_t k = reference_position(nax_test::at(idx, at) + 1, nv, index_mode::clip);
      return std::exp(nax_test::at(x, {{"b", at.at("b")}, {"v", k}}));
    });
    // the index of each row's maximum, read back: the maximum
    if (nb > 0) {
      nax::Array<double, b> m = nax::take_along<v>(x, nax::argmax<v>(x));
      nax::Array<double, b> expected = nax::max<v>(x);
      for (index_t r = 0; r < nb; ++r) CHECK(m(r) == expected(r));
    }
    // take_along with the axis itself in idx: JAX's take_along_axis
    auto along = random_indices<b, v>(rng, {nb, nt}, nv);
    nax::Array<double, v, b> c = nax::take_along<v>(x, along, index_mode::wrap);
    nax_test::check_all(c, [&](const nax_test::index_map& at) {
      const index_t k = reference_position(nax_test::at(along, at), nv, index_mode::wrap);
      return nax_test::at(x, {{"b", at.at("b")}, {"v", k}});
    });
  }
}

TEST_CASE("take: index types, a gather into its own source, one_hot") {
  nax_test::random_source rng(1703);
  nax::Array<float, v> x({5});
  for (index_t q = 0; q < 5; ++q) x(q) = float(q);
  nax::Array<std::uint8_t, t> u({3});
  u(0) = 4, u(1) = 200, u(2) = 0;
  nax::Array<float, t> a = nax::take<v>(x, u);
  CHECK(a(0) == 4.f);
  CHECK(a(1) == 4.f);
  CHECK(a(2) == 0.f);
  nax::Array<std::int64_t, t> big({2});
  big(0) = std::numeric_limits<std::int64_t>::min(), big(1) = std::numeric_limits<std::int64_t>::max();
  nax::Array<float, t> c = nax::take<v>(x, big, index_mode::wrap);
  CHECK(c(0) == float(((std::numeric_limits<std::int64_t>::min() % 5) + 5) % 5));
  CHECK(c(1) == float(std::numeric_limits<std::int64_t>::max() % 5));
  nax::Array<std::uint64_t, t> huge({1});
  huge(0) = std::numeric_limits<std::uint64_t>::max();
  nax::Array<float, t> d = nax::take<v>(x, huge);
  CHECK(d(0) == 4.f);
  nax::Array<float, t> e = nax::take<v>(x, huge, index_mode::wrap);
  CHECK(e(0) == float(std::numeric_limits<std::uint64_t>::max() % 5));

  // x = take(x, reversed indices): the pass reads what it overwrites, so it goes through a temporary
  nax::Array<int, v> rev({5});
  for (index_t q = 0; q < 5; ++q) rev(q) = int(4 - q);
  x = nax::take_along<v>(x, rev);
  for (index_t q = 0; q < 5; ++q) CHECK(x(q) == float(4 - q));

  for (int trial = 0; trial < 20; ++trial) {
    const index_t n = rng.extent(6), nb = rng.extent(4);
    auto labels = random_indices<b>(rng, {nb}, n + 1);
    nax::Array<double, v, b> oh = nax::one_hot<v, double>(labels, n);
    nax_test::check_all(oh, [&](const nax_test::index_map& at) {
      return double(nax_test::at(labels, at) == at.at("v"));
    });
  }
}

TEST_CASE("take inside vmap: mapped indices and a mapped source") {
  nax_test::random_source rng(1704);
  const index_t nv = 4, nw = 3, nb = 5, nt = 2;
  auto table = nax_test::random_array<double, v, w>(rng, {nv, nw});
  auto tables = nax_test::random_array<double, b, v, w>(rng, {nb, nv, nw});
  auto tokens = random_indices<b, t>(rng, {nb, nt}, nv);
  nax::Array<double, b, t, w> a = nax::vmap<b>([](const auto& tab, const auto& tok) { return nax::take<v>(tab, tok); },
                                               nax::in_axes(nax::none, nax::mapped))(table, tokens);
  nax_test::check_all(a, [&](const nax_test::index_map& at) {
    return nax_test::at(table, {{"v", reference_position(nax_test::at(tokens, at), nv, index_mode::clip)}, {"w", at.at("w")}});
  });
  nax::Array<double, b, t, w> c =
      nax::vmap<b>([](const auto& tab, const auto& tok) { return nax::take<v>(tab, tok); })(tables, tokens);
  nax_test::check_all(c, [&](const nax_test::index_map& at) {
    return nax_test::at(tables, {{"b", at.at("b")},
                                 {"v", reference_position(nax_test::at(tokens, at), nv, index_mode::clip)},
                                 {"w", at.at("w")}});
  });
}

TEST_CASE("scatter_add, scatter, scatter_max and scatter_min against a loop, every mode") {
  nax_test::random_source rng(1705);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t nv = rng.nonzero_extent(5), nw = rng.extent(3), nt = rng.extent(6);
    auto x = nax_test::random_array<double, w, v>(rng, {nw, nv});
    auto idx = random_indices<t>(rng, {nt}, nv);
    auto upd = nax_test::random_array<double, t, w>(rng, {nt, nw});
    for (index_mode mode : all_modes) {
      INFO("extents v=" << nv << " w=" << nw << " t=" << nt << " mode " << int(mode));
      nax::Array<double, w, v> add = x, mx = x, mn = x;
      for (index_t q = 0; q < nt; ++q) {
        const index_t k = reference_position(idx(q), nv, mode);
        if (k < 0) continue;
        for (index_t c = 0; c < nw; ++c) {
          add(c, k) += upd(q, c);
          mx(c, k) = std::max(mx(c, k), upd(q, c));
          mn(c, k) = std::min(mn(c, k), upd(q, c));
        }
      }
      nax::Array<double, v, w> a = nax::scatter_add<v>(x, idx, upd, mode);
      nax_test::check_all(a, [&](const nax_test::index_map& at) { return nax_test::at(add, at); });
      nax::Array<double, w, v> m = nax::scatter_max<v>(x, idx, upd * 1.0, mode);
      nax_test::check_all(m, [&](const nax_test::index_map& at) { return nax_test::at(mx, at); }, 0.0, 0.0);
      nax::Array<double, w, v> n = nax::scatter_min<v>(x, idx, upd, mode);
      nax_test::check_all(n, [&](const nax_test::index_map& at) { return nax_test::at(mn, at); }, 0.0, 0.0);
    }
    // scatter (set) with distinct indices, and integer updates into a float array
    nax::Array<int, t> distinct({std::min(nt, nv)});
    for (index_t q = 0; q < distinct.size(); ++q) distinct(q) = int(nv - 1 - q) - (q % 2 ? int(nv) : 0);
    auto iu = random_indices<w, t>(rng, {nw, distinct.size()}, 9);
    nax::Array<double, v, w> s = nax::scatter<v>(x, distinct, iu);
    nax::Array<double, w, v> set = x;
    for (index_t q = 0; q < distinct.size(); ++q)
      for (index_t c = 0; c < nw; ++c) set(c, nv - 1 - q) = iu(c, q);
    nax_test::check_all(s, [&](const nax_test::index_map& at) { return nax_test::at(set, at); }, 0.0, 0.0);
  }
}

TEST_CASE("scatter_add: duplicates accumulate, a shared axis scatters per row, large updates run in parallel") {
  nax_test::random_source rng(1706);
  const index_t nv = 7, nw = 300, nt = 500;
  auto x = nax_test::random_array<float, v, w>(rng, {nv, nw});
  auto idx = random_indices<t>(rng, {nt}, nv);
  auto upd = nax_test::random_array<float, w, t>(rng, {nw, nt});
  nax::Array<double, v, w> expected = nax::cast<double>(x);
  for (index_t q = 0; q < nt; ++q)
    for (index_t c = 0; c < nw; ++c) expected(reference_position(idx(q), nv, index_mode::clip), c) += upd(c, q);
  nax::Array<float, v, w> a = nax::scatter_add<v>(x, idx, upd, index_mode::clip);
  nax_test::check_all(a, [&](const nax_test::index_map& at) { return float(nax_test::at(expected, at)); }, 1e-5, 1e-4);
  // labels per row: the cross-entropy's gradient shape
  auto labels = random_indices<b>(rng, {4}, nv);
  nax::Array<double, b, v> z({4, nv});
  nax::Array<double, b> ones({4});
  for (auto& o : ones) o = 1.0;
  nax::Array<double, b, v> oh = nax::scatter_add<v>(z, labels, ones);
  nax::Array<double, b, v> expected_oh = nax::one_hot<v, double>(labels, nv);
  for (index_t r = 0; r < 4; ++r) {
    if (labels(r) < 0 && labels(r) >= -nv) continue;  // negative: counted from the end by scatter, not by one_hot
    for (index_t c = 0; c < nv; ++c)
      if (labels(r) >= 0 && labels(r) < nv) CHECK(oh(r, c) == expected_oh(r, c));
  }
}

TEST_CASE("scatter_add with indices along the scattered axis itself (take_along_axis's adjoint), any extents") {
  // idx carries v with an extent of its own: each of its positions sends one update to the
  // position its value names. (The scatter once walked v with the output's extent and stride
  // as well: wrong sums, and writes outside the output.)
  nax_test::random_source rng(1708);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t nv = rng.nonzero_extent(5), m = rng.extent(8), nw = rng.extent(4);
    INFO("extents v=" << nv << " (indices " << m << ") w=" << nw);
    auto x = nax_test::random_array<double, v, w>(rng, {nv, nw});
    auto idx = random_indices<w, v>(rng, {nw, m}, nv);
    auto upd = nax_test::random_array<double, v, w>(rng, {m, nw});
    for (index_mode mode : all_modes) {
      nax::Array<double, v, w> expected = x;
      for (index_t a = 0; a < m; ++a)
        for (index_t c = 0; c < nw; ++c) {
          const index_t k = reference_position(idx(c, a), nv, mode);
          if (k >= 0) expected(k, c) += upd(a, c);
        }
      nax::Array<double, w, v> got = nax::scatter_add<v>(x, idx, upd, mode);
      nax_test::check_all(got, [&](const nax_test::index_map& at) { return nax_test::at(expected, at); });
      // the gradient of take_along<v> with such indices is that scatter of the cotangent
      auto weights = nax_test::random_array<double, w, v>(rng, {nw, m});
      auto g = nax::grad([&](const auto& z) { return nax::sum(weights * nax::take_along<v>(z, idx, mode)); })(x);
      nax::Array<double, v, w> expected_g({nv, nw});
      for (index_t a = 0; a < m; ++a)
        for (index_t c = 0; c < nw; ++c) {
          const index_t k = reference_position(idx(c, a), nv, mode);
          if (k >= 0) expected_g(k, c) += weights(c, a);
        }
      nax_test::check_all(g, [&](const nax_test::index_map& at) { return nax_test::at(expected_g, at); });
    }
  }
}

TEST_CASE("indexing errors name the axis, the index and the extents") {
  nax::Array<float, v, w> table({3, 2});
  nax::Array<int, t> tokens({4});
  tokens(0) = 0, tokens(1) = 2, tokens(2) = -3, tokens(3) = 3;
  auto message = [](auto&& run) {
    try {
      run();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([&] { nax::Array<float, t, w> a = nax::take<v>(table, tokens, index_mode::checked); }) ==
        "nax: index 3 at (t=3) is out of range for axis 'v' of extent 3 (index_mode::checked accepts -3 to 2)");
  tokens(3) = -4;
  CHECK(message([&] { nax::Array<float, v, w> a = nax::scatter_add<v>(table, tokens, nax::zeros<float, t, w>(4, 2),
                                                                       index_mode::checked); }) ==
        "nax: index -4 at (t=3) is out of range for axis 'v' of extent 3 (index_mode::checked accepts -3 to 2)");
  tokens(3) = 1;
  nax::Array<float, t, w> fine = nax::take<v>(table, tokens, index_mode::checked);
  CHECK(fine(2, 0) == table(0, 0));
  nax::Array<float, v, w> empty({0, 2});
  CHECK(message([&] { nax::Array<float, t, w> a = nax::take<v>(empty, tokens); }) ==
        "nax: take along axis 'v' of extent 0 with a non-empty index array: there is nothing to take");
  nax::Array<int, w> per_w({3});
  CHECK(message([&] { auto e = nax::take<v>(table, per_w); }) ==
        "nax: extent mismatch on axis 'w': 2 in the source, 3 in the indices");
  CHECK(message([&] { auto e = nax::scatter_add<v>(table, tokens, nax::zeros<float, t, w>(4, 3)); }) ==
        "nax: extent mismatch on axis 'w': 3 in the updates, 2 in take<A>(x, idx)");
  nax::Array<float, t, w> none({0, 2});
  nax::Array<int, t> no_tokens({0});
  nax::Array<float, t, w> nothing = nax::take<v>(empty, no_tokens);  // nothing taken from nothing: fine
  CHECK(nothing.size() == 0);
}

TEST_CASE("a scatter assigned to an array is written in place, unless its operands read that memory") {
  nax::Array<double, v> x({5});
  for (index_t q = 0; q < 5; ++q) x(q) = double(q);
  nax::Array<int, t> idx({3});
  idx(0) = 4, idx(1) = 0, idx(2) = 4;
  nax::Array<double, t> u({3});
  u(0) = 10, u(1) = 20, u(2) = 30;
  x = nax::scatter_add<v>(x, idx, u);  // in place: x is its own operand
  const double expected[] = {20, 1, 2, 3, 44};
  for (index_t q = 0; q < 5; ++q) CHECK(x(q) == expected[q]);
  // updates that are x's own first three elements: read before anything is written
  nax::ArrayView<double, t> head(x.data(), {3}, {1});
  x = nax::scatter_add<v>(x, idx, head);
  const double again[] = {20 + 1, 1, 2, 3, 44 + 20 + 2};
  for (index_t q = 0; q < 5; ++q) CHECK(x(q) == again[q]);
  // into a transposed destination, and from a transposed operand
  nax::Array<double, v, w> m({3, 2});
  for (index_t q = 0; q < 6; ++q) m.data()[q] = double(q);
  nax::Array<double, w, t> upd({2, 3});
  for (index_t q = 0; q < 6; ++q) upd.data()[q] = 100.0 * double(q + 1);
  nax::Array<int, t> rows({3});
  rows(0) = 2, rows(1) = -1, rows(2) = 0;
  nax::Array<double, w, v> r = nax::scatter_add<v>(m, rows, upd);
  for (index_t c = 0; c < 2; ++c)
    for (index_t k = 0; k < 3; ++k) {
      double e = m(k, c);
      for (index_t q = 0; q < 3; ++q)
        if ((rows(q) + 3) % 3 == k) e += upd(c, q);
      CHECK(r(c, k) == e);
    }
}

TEST_CASE("take<A>(x, i) with a C++ index: the slice at i, A removed; out of range raises") {
  nax_test::random_source rng(31);
  for (index_t nv : {index_t{1}, index_t{4}}) {
    for (index_t nw : {index_t{0}, index_t{1}, index_t{3}}) {
      INFO("v " << nv << ", w " << nw);
      auto x = nax_test::random_array<double, w, v>(rng, {nw, nv});  // A inner in memory
      for (index_t i = 0; i < nv; ++i) {
        nax::Array<double, w> row = nax::take<v>(x, i);
        for (index_t k = 0; k < nw; ++k) CHECK(row(k) == x(k, i));
        nax::Array<double, w> twice = nax::take<v>(x * 2.0, std::size_t(i));  // an expression, an unsigned index
        for (index_t k = 0; k < nw; ++k) CHECK(twice(k) == 2.0 * x(k, i));
      }
      for (index_t bad : {index_t{-1}, nv}) {
        std::string message = "no error";
        try {
          (void)nax::take<v>(x, bad);
        } catch (const nax::shape_error& e) {
          message = e.what();
        }
        CHECK(message == "nax: take<v>(x, " + std::to_string(bad) + "): the index is outside the axis 'v' of extent " +
                             std::to_string(nv));
      }
    }
  }
}
