// expr/gather_layouts.hpp against loops written here: flip, roll, pad (a constant and the four
// modes, pads wider than the axis), tile, repeat, dynamic_slice and dynamic_update_slice, on
// random extents (0 and 1 included), both axis orders and an expression as operand; their
// gradients (each output element's cotangent added to the element it read); starts that vary
// per vmap member; and the errors.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(v);
NAX_AXIS(w);
NAX_AXIS(b);
using nax::index_t;
using nax::pad_mode;

// Python's floor modulo, for the reference positions.
index_t floor_mod(index_t a, index_t n) { return n == 0 ? 0 : ((a % n) + n) % n; }

// The position along v of x that output position i reads (-1: none, the constant).
using source_map = std::function<index_t(index_t)>;

index_t pad_source(index_t i, index_t n, index_t before, pad_mode mode) {
  const index_t j = i - before;
  switch (mode) {
    case pad_mode::edge: return j < 0 ? 0 : (j >= n ? n - 1 : j);
    case pad_mode::wrap: return floor_mod(j, n);
    case pad_mode::reflect: {  // mirror about the end elements, repeatedly (numpy's rule)
      if (n == 1) return 0;
      const index_t k = floor_mod(j, 2 * (n - 1));
      return k < n ? k : 2 * (n - 1) - k;
    }
    case pad_mode::symmetric: {
      const index_t k = floor_mod(j, 2 * n);
      return k < n ? k : 2 * n - 1 - k;
    }
  }
  return -1;
}

// out (axes v, w in either order, extent m along v) reads x (v, w) at source(i), fill where -1;
// and the gradient of sum(weights * op(x)) adds weights(i, c) into source(i).
template <class Op>
void check_gather(nax_test::random_source& rng, index_t nv, index_t nw, index_t m, const source_map& source, Op op,
                  double fill = 0.0) {
  auto x = nax_test::random_array<double, v, w>(rng, {nv, nw});
  nax::Array<double, w, v> xt = nax::transpose<w, v>(x);
  auto expected = [&](const nax_test::index_map& at) {
    const index_t k = source(at.at("v"));
    return k < 0 ? fill : nax_test::at(x, {{"v", k}, {"w", at.at("w")}});
  };
  nax::Array<double, v, w> a = op(x);
  CHECK(a.extent<v>() == m);
  nax_test::check_all(a, expected);
  nax::Array<double, v, w> c = op(xt);  // a strided operand
  nax_test::check_all(c, expected);
  nax::Array<double, w, v> d = op(nax::exp(x) - 1.0) * 2.0;  // an expression, fused into a consumer
  nax_test::check_all(d, [&](const nax_test::index_map& at) {
    const index_t k = source(at.at("v"));
    return 2.0 * (k < 0 ? fill : std::expm1(nax_test::at(x, {{"v", k}, {"w", at.at("w")}})));
  });
  auto weights = nax_test::random_array<double, w, v>(rng, {nw, m});
  auto g = nax::grad([&](const auto& z) { return nax::sum(weights * op(z)); })(x);
  nax::Array<double, v, w> expected_g({nv, nw});
  for (index_t i = 0; i < m; ++i)
    for (index_t q = 0; q < nw; ++q)
      if (const index_t k = source(i); k >= 0) expected_g(k, q) += weights(q, i);
  nax_test::check_all(g, [&](const nax_test::index_map& at) { return nax_test::at(expected_g, at); });
}
}  // namespace

TEST_CASE("flip, roll, tile and repeat against loops, with their gradients") {
  nax_test::random_source rng(2101);
  for (int trial = 0; trial < 25; ++trial) {
    const index_t n = rng.extent(6), nw = rng.extent(3);
    const index_t shift = rng.integer(-13, 13), reps = rng.integer(0, 3);
    INFO("extents v=" << n << " w=" << nw << " shift " << shift << " reps " << reps);
    check_gather(rng, n, nw, n, [&](index_t i) { return n - 1 - i; }, [](const auto& x) { return nax::flip<v>(x); });
    check_gather(rng, n, nw, n, [&](index_t i) { return floor_mod(i - shift, n); },
                 [&](const auto& x) { return nax::roll<v>(x, shift); });
    check_gather(rng, n, nw, n * reps, [&](index_t i) { return i % n; },
                 [&](const auto& x) { return nax::tile<v>(x, reps); });
    check_gather(rng, n, nw, n * reps, [&](index_t i) { return i / reps; },
                 [&](const auto& x) { return nax::repeat<v>(x, reps); });
  }
}

TEST_CASE("pad: a constant and the edge, reflect, symmetric and wrap modes, pads wider than the axis") {
  nax_test::random_source rng(2102);
  for (int trial = 0; trial < 25; ++trial) {
    const index_t n = rng.extent(5), nw = rng.extent(3), before = rng.integer(0, 9), after = rng.integer(0, 9);
    INFO("extents v=" << n << " w=" << nw << " pads " << before << ", " << after);
    const index_t m = n + before + after;
    check_gather(
        rng, n, nw, m, [&](index_t i) { return i >= before && i < before + n ? i - before : -1; },
        [&](const auto& x) { return nax::pad<v>(x, before, after, 0.5); }, 0.5);
    check_gather(
        rng, n, nw, m, [&](index_t i) { return i >= before && i < before + n ? i - before : -1; },
        [&](const auto& x) { return nax::pad<v>(x, before, after); }, 0.0);
    if (n == 0) continue;  // the modes read the axis (an empty one raises: the errors' case)
    for (pad_mode mode : {pad_mode::edge, pad_mode::reflect, pad_mode::symmetric, pad_mode::wrap}) {
      INFO("mode " << int(mode));
      check_gather(rng, n, nw, m, [&](index_t i) { return pad_source(i, n, before, mode); },
                   [&](const auto& x) { return nax::pad<v>(x, before, after, mode); });
    }
  }
  // integer arrays, and the example of the header comment
  nax::Array<int, v> x = nax::arange<int, v>(3);
  nax::Array<int, v> r = nax::pad<v>(x, 2, 2, pad_mode::reflect);
  nax::Array<int, v> s = nax::pad<v>(x, 2, 2, pad_mode::symmetric);
  nax::Array<int, v> e = nax::pad<v>(x, 2, 2, pad_mode::edge);
  nax::Array<int, v> c = nax::pad<v>(x, 1, 0, -7);
  CHECK(std::vector<int>(r.begin(), r.end()) == std::vector<int>{2, 1, 0, 1, 2, 1, 0});
  CHECK(std::vector<int>(s.begin(), s.end()) == std::vector<int>{1, 0, 0, 1, 2, 2, 1});
  CHECK(std::vector<int>(e.begin(), e.end()) == std::vector<int>{0, 0, 0, 1, 2, 2, 2});
  CHECK(std::vector<int>(c.begin(), c.end()) == std::vector<int>{-7, 0, 1, 2});
}

TEST_CASE("dynamic_slice and dynamic_update_slice: starts clamped as lax's, both gradients") {
  nax_test::random_source rng(2103);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t n = rng.extent(6), nw = rng.extent(3), size = rng.integer(0, n), start = rng.integer(-9, 9);
    const index_t s = std::max<index_t>(0, std::min(start < 0 ? start + n : start, n - size));  // as lax's
    INFO("extents v=" << n << " w=" << nw << " window " << size << " at " << start);
    check_gather(rng, n, nw, size, [&](index_t i) { return s + i; },
                 [&](const auto& x) { return nax::dynamic_slice<v>(x, start, size); });
    nax::Array<std::int32_t> start_array;
    start_array() = static_cast<std::int32_t>(start);
    check_gather(rng, n, nw, size, [&](index_t i) { return s + i; },
                 [&](const auto& x) { return nax::dynamic_slice<v>(x, start_array, size); });
    // update: x outside the window, the update inside; gradients split the same way
    auto x = nax_test::random_array<double, w, v>(rng, {nw, n});
    auto u = nax_test::random_array<double, v, w>(rng, {size, nw});
    auto expected = [&](const nax_test::index_map& at) {
      const index_t i = at.at("v");
      return i >= s && i < s + size ? nax_test::at(u, {{"v", i - s}, {"w", at.at("w")}}) : nax_test::at(x, at);
    };
    nax::Array<double, v, w> a = nax::dynamic_update_slice<v>(x, u, start);
    nax_test::check_all(a, expected);
    nax::Array<double, w, v> c = nax::dynamic_update_slice<v>(x * 1.0, nax::cast<float>(u), start_array + 0);
    nax_test::check_all(c, [&](const nax_test::index_map& at) {
      const index_t i = at.at("v");
      return i >= s && i < s + size ? double(float(nax_test::at(u, {{"v", i - s}, {"w", at.at("w")}})))
                                    : nax_test::at(x, at);
    });
    auto weights = nax_test::random_array<double, v, w>(rng, {n, nw});
    auto [gx, gu] = nax::grad<0, 1>([&](const auto& p, const auto& q) {
      return nax::sum(weights * nax::dynamic_update_slice<v>(p, q, start));
    })(x, u);
    nax_test::check_all(gx, [&](const nax_test::index_map& at) {
      const index_t i = at.at("v");
      return i >= s && i < s + size ? 0.0 : nax_test::at(weights, at);
    });
    nax_test::check_all(gu, [&](const nax_test::index_map& at) {
      return nax_test::at(weights, {{"v", at.at("v") + s}, {"w", at.at("w")}});
    });
  }
}

TEST_CASE("inside vmap: a start per member, a mapped operand, roll and pad of mapped values") {
  nax_test::random_source rng(2104);
  for (int trial = 0; trial < 10; ++trial) {
    const index_t n = rng.nonzero_extent(6), nb = rng.extent(4), size = rng.integer(0, n);
    INFO("extents v=" << n << " b=" << nb << " window " << size);
    auto x = nax_test::random_array<double, v>(rng, {n});
    auto xs = nax_test::random_array<double, b, v>(rng, {nb, n});
    nax::Array<std::int32_t, b> starts({nb});
    for (auto& s : starts) s = static_cast<std::int32_t>(rng.integer(-8, 7));
    auto clamp = [&](index_t s) { return std::max<index_t>(0, std::min(s < 0 ? s + n : s, n - size)); };
    // an unmapped operand, a start per member
    nax::Array<double, b, v> a =
        nax::vmap<b>([&](const auto& s) { return nax::dynamic_slice<v>(x, s, size); })(starts);
    nax_test::check_all(a, [&](const nax_test::index_map& at) {
      return nax_test::at(x, {{"v", clamp(starts(at.at("b"))) + at.at("v")}});
    });
    // a mapped operand and a mapped start; the update slice of each member
    nax::Array<double, v, b> c =
        nax::vmap<b>([&](const auto& row, const auto& s) { return nax::dynamic_slice<v>(row, s, size); })(xs, starts);
    nax_test::check_all(c, [&](const nax_test::index_map& at) {
      return nax_test::at(xs, {{"b", at.at("b")}, {"v", clamp(starts(at.at("b"))) + at.at("v")}});
    });
    auto ones = nax::full<double, v>(7.0, size);
    nax::Array<double, b, v> d = nax::vmap<b>([&](const auto& row, const auto& s) {
      return nax::dynamic_update_slice<v>(row, ones, s);
    })(xs, starts);
    nax_test::check_all(d, [&](const nax_test::index_map& at) {
      const index_t i = at.at("v"), s = clamp(starts(at.at("b")));
      return i >= s && i < s + size ? 7.0 : nax_test::at(xs, at);
    });
    // per-member gradients through a mapped window
    auto g = nax::vmap<b>(nax::grad([&](const auto& row, const auto& s) {
      return nax::sum(nax::square(nax::dynamic_slice<v>(row, s, size)));
    }))(xs, starts);
    nax_test::check_all(g, [&](const nax_test::index_map& at) {
      const index_t i = at.at("v"), s = clamp(starts(at.at("b")));
      return i >= s && i < s + size ? 2.0 * nax_test::at(xs, at) : 0.0;
    });
    nax::Array<double, b, v> r = nax::vmap<b>([&](const auto& row) { return nax::roll<v>(row, 1); })(xs);
    nax_test::check_all(r, [&](const nax_test::index_map& at) {
      return nax_test::at(xs, {{"b", at.at("b")}, {"v", floor_mod(at.at("v") - 1, n)}});
    });
    nax::Array<double, b, v> p =
        nax::vmap<b>([&](const auto& row) { return nax::pad<v>(row, 1, 2, pad_mode::reflect); })(xs);
    nax_test::check_all(p, [&](const nax_test::index_map& at) {
      return nax_test::at(xs, {{"b", at.at("b")}, {"v", pad_source(at.at("v"), n, 1, pad_mode::reflect)}});
    });
  }
}

TEST_CASE("gather layouts: errors name the op, the axis and the numbers") {
  nax::Array<double, v, w> x({3, 2});
  nax::Array<double, v, w> empty({0, 2});
  CHECK(nax_test::check_shape_error([&] { auto e = nax::pad<v>(x, -1, 2); },
                                    {"nax: pad<v> by -1 and 2: pads must not be negative"}));
  CHECK(nax_test::check_shape_error([&] { auto e = nax::pad<v>(empty, 1, 1, pad_mode::edge); },
                                    {"pad<v> of an axis of extent 0", "only a constant pad can extend it"}));
  nax::Array<double, v, w> padded_empty = nax::pad<v>(empty, 1, 2, 4.0);  // a constant pad can
  CHECK(padded_empty.extent<v>() == 3);
  CHECK(padded_empty(2, 1) == 4.0);
  nax::Array<double, v, w> nothing = nax::pad<v>(empty, 0, 0, pad_mode::wrap);  // nothing to read
  CHECK(nothing.size() == 0);
  CHECK(nax_test::check_shape_error([&] { auto e = nax::dynamic_slice<v>(x, 0, 4); },
                                    {"nax: dynamic_slice of size 4 along axis 'v' of extent 3", "must fit"}));
  nax::Array<double, v, w> big({5, 2});
  CHECK(nax_test::check_shape_error([&] { auto e = nax::dynamic_update_slice<v>(x, big, 0); },
                                    {"nax: dynamic_update_slice of size 5 along axis 'v' of extent 3"}));
  CHECK(nax_test::check_shape_error([&] { auto e = nax::tile<v>(x, -2); },
                                    {"nax: tile<v> with -2 repetitions: the count must not be negative"}));
  CHECK(nax_test::check_shape_error([&] { auto e = nax::repeat<v>(x, index_t(1) << 62); },
                                    {"nax: size overflow in repeat along axis 'v'"}));
  CHECK(nax_test::check_shape_error([&] { auto e = nax::pad<v>(x, index_t(1) << 62, index_t(1) << 62); },
                                    {"nax: size overflow in pad along axis 'v'"}));
  nax::Array<double, w> other({4});  // the update's other extents are checked by name
  nax::Array<double, v, w> wrong({1, 4});
  CHECK(nax_test::check_shape_error([&] { auto e = nax::dynamic_update_slice<v>(x, wrong, 0); },
                                    {"extent mismatch on axis 'w'"}));
}
