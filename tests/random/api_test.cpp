// The public API of nax::random (random/random.hpp) against JAX 0.10.2 on CPU: keys, split,
// fold_in and the samplers as expressions with named axes, including keys that vary over a
// batch axis (what vmap over keys gives). Known answers: tests/random/jax_reference.py.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <nax/nax.hpp>
#include <nax/random/random.hpp>

namespace nr = nax::random;
using nax::index_t;

namespace {
NAX_AXIS(sample);
NAX_AXIS(batch);
NAX_AXIS(row);
NAX_AXIS(col);
NAX_AXIS(two);

std::uint32_t bits_of(float v) { return std::bit_cast<std::uint32_t>(v); }
std::uint64_t bits_of(double v) { return std::bit_cast<std::uint64_t>(v); }

template <class E, class... As>
constexpr bool has_axes_v = std::is_same_v<nax::visible_axes_t<E>, nax::axes<As...>>;
}  // namespace

TEST_CASE("key data: a key is one uint64 element, k0 in the high word") {
  static_assert(nr::key_data(nr::Key{1u, 2u}) == 0x0000000100000002ull);
  static_assert(nr::wrap_key_data(0x0000000100000002ull) == nr::Key{1u, 2u});
  CHECK(nr::key_data(nr::key(-1)) == ~0ull);
  CHECK(nr::wrap_key_data(nr::key_data(nr::key(1768780800062))) == nr::key(1768780800062));
  CHECK(nr::key(1768780800062) == nr::Key{411u, 3549241406u});  // 64-bit seed: high, low words
}

TEST_CASE("split(key) and split<axis>(key, n) match jax.random.split") {
  // split(key(0), 2) = [[1797259609, 2579123966], [928981903, 3453687069]]
  const std::array<nr::Key, 2> pair = nr::split(nr::key(0));
  CHECK(pair[0] == nr::Key{1797259609u, 2579123966u});
  CHECK(pair[1] == nr::Key{928981903u, 3453687069u});
  auto [a, b] = nr::split(nr::key(0));
  CHECK(a == pair[0]);
  CHECK(b == pair[1]);

  auto keys_expr = nr::split<batch>(nr::key(0), 2);
  static_assert(has_axes_v<decltype(keys_expr), batch>);
  nax::Array<std::uint64_t, batch> keys = keys_expr;
  REQUIRE(keys.extent<batch>() == 2);
  CHECK(nr::wrap_key_data(keys(0)) == pair[0]);
  CHECK(nr::wrap_key_data(keys(1)) == pair[1]);
  CHECK(nax::eval(nr::split<batch>(nr::key(0), 0)).size() == 0);

  // split(key(42), (2, 3)): keys over a named 2-D shape, row-major linear index.
  const std::uint32_t want[12] = {0x6d3e048f, 0x1022172d, 0x3d7b32d,  0xadd083f4, 0x92fb20ea, 0xf38d913,
                                  0xbad56946, 0x354ba891, 0xb013aee3, 0xc34eddf6, 0xa4d91a96, 0x3122544e};
  nax::Array<std::uint64_t, row, col> grid = nr::split<row, col>(nr::key(42), {2, 3});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      CHECK(nr::wrap_key_data(grid(i, j)) == nr::Key{want[2 * (3 * i + j)], want[2 * (3 * i + j) + 1]});
}

TEST_CASE("uniform through the public API: the issue's known answers") {
  // uniform(key(0), (3,)) = [0.947667, 0.9785799, 0.33229148]
  nax::Array<float, sample> u = nr::uniform<sample>(nr::key(0), {3});
  CHECK(bits_of(u(0)) == 0x3f729a4eu);
  CHECK(bits_of(u(1)) == 0x3f7a8436u);
  CHECK(bits_of(u(2)) == 0x3eaa221cu);
  CHECK(u(0) == doctest::Approx(0.947667));
  // uniform(split(key(0))[1]) = 0.00729382: a rank-0 sample, from a C++ key and from a key expression
  const float v = nr::uniform<>(nr::split(nr::key(0))[1], {}).item();
  CHECK(bits_of(v) == 0x3bef0100u);
  CHECK(v == doctest::Approx(0.00729382));
  auto k = nr::split<two>(nr::key(0), 2);
  nax::Array<float, two> second = nr::uniform<>(nax::slice<two>(k, 1, 2), {});  // keeps the key's axis
  CHECK(bits_of(second(0)) == 0x3bef0100u);
  CHECK(bits_of(nax::item(nr::uniform<>(nr::split(nax::Array<std::uint64_t>(
                                                 std::array<index_t, 0>{}, std::vector<std::uint64_t>{0}))[1],
                                             {}))) == 0x3bef0100u);

  // uniform(key(7), (2, 3), float32, -3, 5.5) and float64 (x64 mode) on [0, 1)
  const std::uint32_t u7[6] = {0x402eb475, 0x40a91886, 0xbeda0658, 0x3f460dc2, 0x404d9a30, 0x401739c7};
  nax::Array<float, row, col> a = nr::uniform<row, col>(nr::key(7), {2, 3}, -3.0, 5.5);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(bits_of(a(i, j)) == u7[3 * i + j]);
  const std::uint64_t d0[4] = {0x3fdac80056666e90, 0x3fcbaf91c7e6ed88, 0x3feee3e9d53441c8, 0x3fe2624ef17c9d1a};
  nax::Array<double, row, col> d = nr::uniform<double, row, col>(nr::key(0), {2, 2});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(bits_of(d(i, j)) == d0[2 * i + j]);
}

TEST_CASE("uniform without bounds is uniform on [0, 1) with them, bit for bit") {
  // The default range skips the multiply-add and the clamp, which change nothing there.
  auto k = nr::split<batch>(nr::key(31), 10);
  CHECK(nax::sum(nr::uniform<sample>(k, {10000}) != nr::uniform<sample>(k, {10000}, 0.0, 1.0)).item() == 0);
  CHECK(nax::sum(nr::uniform<double, sample>(k, {10000}) != nr::uniform<double, sample>(k, {10000}, 0.0, 1.0)).item() ==
        0);
  CHECK(nax::min(nr::uniform<sample>(k, {10000})).item() >= 0.0f);
  CHECK(nax::max(nr::uniform<sample>(k, {10000})).item() < 1.0f);
}

TEST_CASE("samplers over a 2-D named shape: row-major over the axes as given, values kept by name") {
  // normal(key(1), (3, 4)) float32
  const std::uint32_t n1[12] = {0xbe1e24c8, 0x3dad7b02, 0xbe0b3e78, 0xbe1ec1d3, 0x3fa22228, 0x3e17db52,
                                0x40090f53, 0x3f8057a1, 0xbe94a6e7, 0x3eb778f8, 0xbf353aba, 0xbe7b72d7};
  auto n = nr::normal<row, col>(nr::key(1), {3, 4});
  static_assert(has_axes_v<decltype(n), row, col>);
  static_assert(std::is_same_v<decltype(n)::value_type, float>);
  nax::Array<float, row, col> same = n;
  nax::Array<float, col, row> other_order = n;  // assignment by name: a transpose
  nax::Array<float, row, col> back = nax::transpose<col, row>(n);
  nax::Array<float, col, row> t = nax::transpose<col, row>(n);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) {
      CHECK(bits_of(same(i, j)) == n1[4 * i + j]);
      CHECK(bits_of(other_order(j, i)) == n1[4 * i + j]);
      CHECK(bits_of(back(i, j)) == n1[4 * i + j]);
      CHECK(bits_of(t(j, i)) == n1[4 * i + j]);
    }
  // The order of the axes given to the sampler decides the stream: normal<col, row> is another sample.
  nax::Array<float, row, col> swapped = nr::normal<col, row>(nr::key(1), {4, 3});
  CHECK(bits_of(swapped(1, 0)) == n1[1]);  // (col 0, row 1) is linear index 0 * 3 + 1

  // normal(key(2), (2, 3)) float64
  const std::uint64_t n2[6] = {0xbfc886dbdd70f0e2, 0xbff0b198f3f17e0a, 0x3fdb6cca02665752,
                               0xbfc3d9d5788b31ae, 0xbfe6649a45cc58e4, 0xbffaf024e1fa94d9};
  nax::Array<double, col, row> nd = nr::normal<double, row, col>(nr::key(2), {2, 3});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(bits_of(nd(j, i)) == n2[3 * i + j]);

  // bernoulli(key(3), 0.3, (4, 5)): float32 p (JAX's default) and float64 p (x64 mode)
  const int b32[20] = {1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1};
  const int b64[20] = {0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1};
  auto bern = nr::bernoulli<row, col>(nr::key(3), 0.3, {4, 5});
  static_assert(std::is_same_v<decltype(bern)::value_type, bool>);
  nax::Array<bool, col, row> bt = bern;
  nax::Array<bool, row, col> bd = nr::bernoulli<double, row, col>(nr::key(3), 0.3, {4, 5});
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 5; ++j) {
      CHECK(bt(j, i) == (b32[5 * i + j] == 1));
      CHECK(bd(i, j) == (b64[5 * i + j] == 1));
    }

  // randint(key(8), (3, 4), -50, 50) int32 and (2, 3) in [0, 10^12) int64
  const int r8[12] = {-27, -41, 17, 27, 48, 18, -4, 13, -34, 46, -46, -25};
  auto ri = nr::randint<row, col>(nr::key(8), {3, 4}, -50, 50);
  static_assert(std::is_same_v<decltype(ri)::value_type, std::int32_t>);
  nax::Array<std::int32_t, col, row> rt = ri;
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) CHECK(rt(j, i) == r8[4 * i + j]);
  const std::int64_t r64[6] = {608263143843, 666080778645, 203757502086, 759956092294, 458715267438, 129256544086};
  nax::Array<std::int64_t, row, col> rl =
      nr::randint<std::int64_t, row, col>(nr::key(8), {2, 3}, 0, 1000000000000);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(rl(i, j) == r64[3 * i + j]);
  // randint(key(0), (10,), 0, 10)
  const int r0[10] = {9, 0, 2, 3, 1, 7, 2, 3, 3, 3};
  nax::Array<std::int32_t, sample> r0a = nr::randint<sample>(nr::key(0), {10}, 0, 10);
  for (index_t i = 0; i < 10; ++i) CHECK(r0a(i) == r0[i]);

  // bits(key(0), (2, 3)) uint32 and bits(key(0), (3,)) uint64
  const std::uint32_t w32[6] = {0xf29a4fa7, 0xfa843692, 0x55110e28, 0x77faa835, 0x91e43bb7, 0x2a5e6943};
  nax::Array<std::uint32_t, col, row> w = nr::bits<row, col>(nr::key(0), {2, 3});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(w(j, i) == w32[3 * i + j]);
  const std::uint64_t w64[3] = {0x6b20015999ba4efe, 0x375f238fcddb151d, 0xf71f4ea9a20e4081};
  nax::Array<std::uint64_t, sample> w2 = nr::bits<std::uint64_t, sample>(nr::key(0), {3});
  for (index_t i = 0; i < 3; ++i) CHECK(w2(i) == w64[i]);
}

TEST_CASE("keys that vary over a batch axis: each key its own stream, as jax.vmap over keys") {
  // keys = split(key(0), 2); jax.vmap(lambda k: uniform(k, (3,)))(keys)
  nax::Array<std::uint64_t, batch> keys = nr::split<batch>(nr::key(0), 2);
  const std::uint32_t u[6] = {0x3f57a1e6, 0x3e3ac178, 0x3e68a160, 0x3bef0100, 0x3cab2400, 0x3f14d85e};
  auto x = nr::uniform<sample>(keys, {3});
  static_assert(has_axes_v<decltype(x), batch, sample>);  // the key's axes first, as vmap's out_axes=0
  nax::Array<float, batch, sample> xa = x;
  nax::Array<float, sample, batch> xt = x;
  // the same from the key expression itself, never materialised
  nax::Array<float, batch, sample> xe = nr::uniform<sample>(nr::split<batch>(nr::key(0), 2), {3});
  for (index_t b = 0; b < 2; ++b)
    for (index_t i = 0; i < 3; ++i) {
      CHECK(bits_of(xa(b, i)) == u[3 * b + i]);
      CHECK(bits_of(xt(i, b)) == u[3 * b + i]);
      CHECK(bits_of(xe(b, i)) == u[3 * b + i]);
    }

  // jax.vmap(lambda k: split(k))(keys): both halves of each key
  const std::uint32_t s[8] = {0xf84e8312, 0x2fef64f3, 0x50afc224, 0x7e1f9c78,
                              0x14a3cc6a, 0x157dcf0f, 0xec87e92f, 0xe9dec87f};
  auto [k1, k2] = nr::split(keys);
  static_assert(has_axes_v<decltype(k1), batch>);
  nax::Array<std::uint64_t, batch> k1a = k1, k2a = k2;
  nax::Array<std::uint64_t, batch, two> both = nr::split<two>(keys, 2);
  for (index_t b = 0; b < 2; ++b) {
    CHECK(nr::wrap_key_data(k1a(b)) == nr::Key{s[4 * b], s[4 * b + 1]});
    CHECK(nr::wrap_key_data(k2a(b)) == nr::Key{s[4 * b + 2], s[4 * b + 3]});
    CHECK(both(b, 0) == k1a(b));
    CHECK(both(b, 1) == k2a(b));
  }

  // jax.vmap(fold_in)(keys, [5, 6]): key and data broadcast by name
  nax::Array<std::uint32_t, batch> data({2}, {5u, 6u});
  nax::Array<std::uint64_t, batch> folded = nr::fold_in(keys, data);
  CHECK(nr::wrap_key_data(folded(0)) == nr::Key{0x5b014fed, 0xe3d4b4f7});
  CHECK(nr::wrap_key_data(folded(1)) == nr::Key{0xce3d1e62, 0xee21daf2});
  nax::Array<std::uint64_t, batch> folded_number = nr::fold_in(keys, 5);
  CHECK(nr::wrap_key_data(folded_number(0)) == nr::Key{0x5b014fed, 0xe3d4b4f7});
  CHECK(nr::wrap_key_data(folded_number(1)) == nr::fold_in(nr::wrap_key_data(keys(1)), 5u));
  // a C++ key with per-batch data: fold_in(key, axis_index) gives a key per batch element
  nax::Array<std::uint64_t, batch> per_index = nr::fold_in(nr::key(0), nax::axis_index<batch>(3));
  for (index_t b = 0; b < 3; ++b)
    CHECK(nr::wrap_key_data(per_index(b)) == nr::fold_in(nr::key(0), static_cast<std::uint32_t>(b)));

  // jax.vmap(lambda k: normal(k, (2, 2)))(keys) and randint(k, (4,), 0, 100)
  const std::uint32_t n[8] = {0x3f80838a, 0xbf6805b7, 0xbf3f8837, 0xbf95ef5a,
                              0xc01c5132, 0xc0024897, 0x3e527a30, 0xbeb50488};
  nax::Array<float, row, batch, col> na = nr::normal<row, col>(keys, {2, 2});
  const int r[8] = {91, 61, 47, 17, 22, 22, 96, 35};
  nax::Array<std::int32_t, sample, batch> ra = nr::randint<sample>(keys, {4}, 0, 100);
  for (index_t b = 0; b < 2; ++b) {
    for (index_t i = 0; i < 2; ++i)
      for (index_t j = 0; j < 2; ++j) CHECK(bits_of(na(i, b, j)) == n[4 * b + 2 * i + j]);
    for (index_t i = 0; i < 4; ++i) CHECK(ra(i, b) == r[4 * b + i]);
  }
}

TEST_CASE("samplers compose with other expressions and reductions") {
  // The JAX program's Monte Carlo pi, 1000 keys x 10000 samples, as one batched expression: the number
  // of points inside the circle equals JAX's (jit(vmap(...)) on CPU): 7852606, pi ~ 3.1410424.
  NAX_AXIS(point);
  auto keys = nr::split<batch>(nr::key(1768780800062), 1000);
  auto [kx, ky] = nr::split(keys);
  auto x = nr::uniform<point>(kx, {10000});
  auto y = nr::uniform<point>(ky, {10000});
  auto inside = nax::square(x) + nax::square(y) <= 1.0f;
  CHECK(nax::sum(inside).item() == 7852606);
  nax::Array<double, batch> estimates = 4.0 * nax::mean<point>(inside);
  CHECK(estimates(0) == doctest::Approx(4.0 * 7844 / 10000));  // JAX: 3.1376, 3.1204, 3.1568, 3.142
  CHECK(estimates(1) == doctest::Approx(4.0 * 7801 / 10000));
  CHECK(estimates(3) == doctest::Approx(4.0 * 7855 / 10000));
  // Each estimate is a float mean (as JAX's), so the average carries float rounding.
  CHECK(nax::mean(estimates).item() == doctest::Approx(3.1410424).epsilon(1e-7));

  // Elementwise with arrays, broadcasting by name against the generated axes.
  nax::Array<float, col> scale({3}, {1.f, 2.f, 3.f});
  nax::Array<float, row, col> scaled = nr::uniform<row, col>(nr::key(7), {2, 3}, -3.0, 5.5) * scale;
  nax::Array<float, row, col> plain = nr::uniform<row, col>(nr::key(7), {2, 3}, -3.0, 5.5);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(scaled(i, j) == plain(i, j) * scale(j));
  // A sampler's extents meet other operands' by name: a mismatch is a shape_error.
  CHECK_THROWS_AS(nax::eval(nr::uniform<row, col>(nr::key(7), {2, 4}) * scale), nax::shape_error);
}

TEST_CASE("bad arguments raise nax::argument_error naming the argument and its value") {
  CHECK_THROWS_AS(nr::split<batch>(nr::key(0), -1), nax::argument_error);
  CHECK_THROWS_WITH(nr::split<batch>(nr::key(0), -3), doctest::Contains("n = -3"));
  nax::Array<std::uint64_t, batch> keys = nr::split<batch>(nr::key(0), 2);
  CHECK_THROWS_WITH(nr::split<two>(keys, -2), doctest::Contains("n = -2"));
  CHECK_THROWS_WITH((nr::split<row, col>(nr::key(0), {2, -5})), doctest::Contains("n = -5"));
  CHECK_THROWS_AS(nr::split(nr::key(0), -1), nax::argument_error);

  CHECK_THROWS_WITH(nr::uniform<sample>(nr::key(0), {3}, 2.0, 1.0), doctest::Contains("min = 2, max = 1"));
  CHECK_THROWS_WITH(nr::uniform<sample>(keys, {3}, 1.0, 1.0), doctest::Contains("min = 1, max = 1"));
  CHECK_THROWS_AS((nr::uniform<double, sample>(nr::key(0), {3}, 0.0, NAN)), nax::argument_error);
  CHECK_NOTHROW(nr::uniform<sample>(nr::key(0), {3}, -1.0, 1.0));

  CHECK_THROWS_WITH(nr::bernoulli<sample>(nr::key(0), 1.5, {3}), doctest::Contains("p = 1.5"));
  CHECK_THROWS_WITH(nr::bernoulli<sample>(keys, -0.25, {3}), doctest::Contains("p = -0.25"));
  CHECK_THROWS_AS(nr::bernoulli<sample>(nr::key(0), NAN, {3}), nax::argument_error);
  CHECK_NOTHROW(nr::bernoulli<sample>(nr::key(0), 0.0, {3}));
  CHECK_NOTHROW(nr::bernoulli<sample>(nr::key(0), 1.0, {3}));

  CHECK_THROWS_WITH(nr::randint<sample>(nr::key(0), {3}, 5, 5), doctest::Contains("lo = 5, hi = 5"));
  CHECK_THROWS_WITH(nr::randint<sample>(keys, {3}, 9, -1), doctest::Contains("lo = 9, hi = -1"));
  CHECK_THROWS_WITH(nr::randint<sample>(nr::key(0), {3}, 0, 3000000000), doctest::Contains("hi = 3000000000"));
  CHECK_THROWS_WITH((nr::randint<std::uint32_t, sample>(nr::key(0), {3}, -1, 5)), doctest::Contains("lo = -1"));
  CHECK_NOTHROW((nr::randint<std::int64_t, sample>(nr::key(0), {3}, 0, 3000000000)));

  CHECK_THROWS_AS(nr::uniform<sample>(nr::key(0), {-1}), nax::shape_error);  // a negative extent
}

TEST_CASE("bernoulli's extremes and a sampler with an empty axis") {
  CHECK(nax::sum(nr::bernoulli<sample>(nr::key(5), 0.0, {1000})).item() == 0);
  CHECK(nax::sum(nr::bernoulli<sample>(nr::key(5), 1.0, {1000})).item() == 1000);
  CHECK(nax::eval(nr::normal<row, col>(nr::key(5), {0, 3})).size() == 0);
}

TEST_CASE("samplers inside vmap: a mapped key array gives each member its own stream") {
  nax::Array<std::uint64_t, batch> keys = nr::split<batch>(nr::key(0), 2);
  // jax.vmap(lambda k: uniform(k, (3,)))(keys)
  auto draw = [](const auto& k) { return nr::uniform<sample>(k, {3}); };
  nax::Array<float, batch, sample> u = nax::vmap<batch>(draw)(keys);
  const std::uint32_t want[6] = {0x3f57a1e6, 0x3e3ac178, 0x3e68a160, 0x3bef0100, 0x3cab2400, 0x3f14d85e};
  for (index_t b = 0; b < 2; ++b)
    for (index_t i = 0; i < 3; ++i) CHECK(bits_of(u(b, i)) == want[3 * b + i]);

  // jax.vmap(lambda k: normal(k, (2, 2)))(keys), out_axes at 1: (row, batch, col)
  auto normal_2x2 = [](const auto& k) { return nr::normal<row, col>(k, {2, 2}); };
  auto mapped_normal = nax::vmap<batch>(normal_2x2, nax::in_axes(nax::mapped), nax::out_axes(nax::at<1>));
  nax::Array<float, row, batch, col> n = mapped_normal(keys);
  const std::uint32_t nwant[8] = {0x3f80838a, 0xbf6805b7, 0xbf3f8837, 0xbf95ef5a,
                                  0xc01c5132, 0xc0024897, 0x3e527a30, 0xbeb50488};
  for (index_t b = 0; b < 2; ++b)
    for (index_t i = 0; i < 2; ++i)
      for (index_t j = 0; j < 2; ++j) CHECK(bits_of(n(i, b, j)) == nwant[4 * b + 2 * i + j]);

  // The JAX program's function, written once for one key, mapped over 1000 keys: per-key counts as JAX.
  NAX_AXIS(point);
  auto inside_single = [](const auto& k) {
    auto [kx, ky] = nr::split(k);
    auto x = nr::uniform<point>(kx, {10000});
    auto y = nr::uniform<point>(ky, {10000});
    return nax::sum(nax::square(x) + nax::square(y) <= 1.0f);  // inside vmap: sums over point only
  };
  nax::Array<std::uint64_t, batch> pi_keys = nr::split<batch>(nr::key(1768780800062), 1000);
  nax::Array<std::int32_t, batch> inside = nax::vmap<batch>(inside_single)(pi_keys);
  CHECK(inside(0) == 7844);
  CHECK(inside(1) == 7801);
  CHECK(inside(2) == 7892);
  CHECK(inside(3) == 7855);
  CHECK(nax::sum(inside).item() == 7852606);
  // The loop over keys (a C++ Key each) gives the same numbers.
  for (index_t b = 0; b < 4; ++b) CHECK(inside_single(nr::wrap_key_data(pi_keys(b))).item() == inside(b));
}

TEST_CASE("samples of more than 2^32 values keep 64-bit counters (sliced, never stored)") {
  // The unit-stride path counts in 32 bits; a sample of more than 2^32 values must take the
  // 64-bit path, including across the 2^32 boundary. Element i is random_bits32(key, i).
  const nr::Key k = nr::key(5);
  const index_t big = (index_t{1} << 32) + 16, start = (index_t{1} << 32) - 5;
  nax::Array<std::uint32_t, sample> across = nax::slice<sample>(nr::bits<sample>(k, {big}), start, start + 10);
  for (index_t i = 0; i < 10; ++i) CHECK(across(i) == nr::random_bits32(k, start + i));
  // 2-D: rows of 2^31 + 1 values, so rows 2 and 3 start past 2^32; read a window of each.
  const index_t cols = (index_t{1} << 31) + 1;
  nax::Array<std::uint32_t, row, col> window =
      nax::slice<col>(nr::bits<row, col>(k, {4, cols}), cols - 4, cols);
  for (index_t r = 0; r < 4; ++r)
    for (index_t c = 0; c < 4; ++c) CHECK(window(r, c) == nr::random_bits32(k, r * cols + cols - 4 + c));
  // Exactly 2^32 values: the last index, 2^32 - 1, still fits the 32-bit path.
  const index_t exact = index_t{1} << 32;
  nax::Array<std::uint32_t, sample> tail = nax::slice<sample>(nr::bits<sample>(k, {exact}), exact - 3, exact);
  for (index_t i = 0; i < 3; ++i) CHECK(tail(i) == nr::random_bits32(k, exact - 3 + i));
}
