// vmap: mapping arguments by name (in_axes mapped / none / from<A>), placing outputs
// (out_axes at<P> / replicated, one spec or one per output), map_size, pytrees in and out,
// nested vmaps over different names, an inner vmap that shadows an outer name, and the
// run-time error for mapped arguments that disagree on the extent. Every result is checked
// against a plain loop over the members (nax_test::at reads arrays by name, through the raw
// pointer and strides).
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../support/reference.hpp"

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);
NAX_AXIS(in);
NAX_AXIS(out);

using nax_test::at;
using nax_test::index_map;
using nax_test::index_t;

// x(i, k) = 10 * i + k, as float.
nax::Array<float, i, k> grid(index_t ni, index_t nk) {
  nax::Array<float, i, k> x({ni, nk});
  for (index_t a = 0; a < ni; ++a)
    for (index_t b = 0; b < nk; ++b) x(a, b) = float(10 * a + b);
  return x;
}

struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (nax::Array<float, out, in>, w), (nax::Array<float, out>, b));
};

}  // namespace

TEST_CASE("vmap: psum over arange(12).reshape(3, 4) gives every row [12, 15, 18, 21]") {
  auto x = nax::eval(nax::split<i, i, k>(nax::arange<float, i>(12), 4));
  auto f = [](const auto& row) { return nax::psum<i>(row); };
  nax::Array<float, i, k> y = nax::vmap<i>(f)(x);
  REQUIRE(y.extent<i>() == 3);
  REQUIRE(y.extent<k>() == 4);
  const float expected[4] = {12, 15, 18, 21};
  for (index_t r = 0; r < 3; ++r)
    for (index_t c = 0; c < 4; ++c) CHECK(y(r, c) == expected[c]);
}

TEST_CASE("vmap: psum of a value that does not vary over the axis multiplies it by the axis size") {
  auto x = nax::eval(nax::ones<float, i>(3));
  // JAX: vmap(lambda x: psum(1, 'i'), axis_name='i')(ones(3)) == [3, 3, 3]
  nax::Array<float, i> y = nax::vmap<i>([](const auto&) { return nax::psum<i>(nax::ones<float>()); })(x);
  REQUIRE(y.extent<i>() == 3);
  for (index_t r = 0; r < 3; ++r) CHECK(y(r) == 3.f);

  // An unmapped argument (in_axes none) summed over the members.
  nax::Array<int, k> c({3}, {1, -2, 5});
  auto g = [](const auto&, const auto& constant) { return nax::psum<i>(constant); };
  auto z = nax::eval(nax::vmap<i>(g, nax::in_axes(nax::mapped, nax::none))(x, c));
  static_assert(std::is_same_v<decltype(z), nax::Array<int, i, k>>);
  for (index_t r = 0; r < 3; ++r)
    for (index_t q = 0; q < 3; ++q) CHECK(z(r, q) == 3 * c(q));

  // pmax / pmin of a replicated value leave it as it is.
  auto h = [](const auto&, const auto& constant) { return nax::tuple(nax::pmax<i>(constant), nax::pmin<i>(constant)); };
  auto [mx, mn] = nax::vmap<i>(h, nax::in_axes(nax::mapped, nax::none))(x, c);
  nax::Array<int, i, k> mxa = mx, mna = mn;
  for (index_t r = 0; r < 3; ++r)
    for (index_t q = 0; q < 3; ++q) {
      CHECK(mxa(r, q) == c(q));
      CHECK(mna(r, q) == c(q));
    }
}

TEST_CASE("vmap: x - axis_index over arange(10) is zero") {
  auto x = nax::eval(nax::arange<std::int32_t, i>(10));
  auto y = nax::eval(nax::vmap<i>([](const auto& v) { return v - nax::axis_index<i>(); })(x));
  static_assert(std::is_same_v<decltype(y), nax::Array<std::int32_t, i>>);
  REQUIRE(y.extent<i>() == 10);
  for (index_t r = 0; r < 10; ++r) CHECK(y(r) == 0);
}

TEST_CASE("vmap: a linear layer over a batch equals a loop over the examples") {
  nax_test::random_source rng;
  for (int trial = 0; trial < 4; ++trial) {
    const index_t nb = rng.extent(6), ni = rng.nonzero_extent(5), no = rng.nonzero_extent(4);
    auto x = nax_test::random_array<float, i, in>(rng, {nb, ni});
    auto w = nax_test::random_array<float, out, in>(rng, {no, ni});
    auto b = nax_test::random_array<float, out>(rng, {no});
    auto layer = [](const auto& xi, const auto& W, const auto& bias) { return nax::tanh(nax::dot<in>(W, xi) + bias); };
    CAPTURE(nb);
    CAPTURE(ni);
    CAPTURE(no);
    auto reference = [&](const index_map& idx) {
      double acc = 0;
      for (index_t q = 0; q < ni; ++q) acc += double(w(idx.at("out"), q)) * double(x(idx.at("i"), q));
      return std::tanh(acc + double(b(idx.at("out"))));
    };

    // Default: in_axes mapped for every argument (w and b lack i: broadcast), i first.
    auto y = nax::eval(nax::vmap<i>(layer)(x, w, b));
    static_assert(std::is_same_v<decltype(y), nax::Array<float, i, out>>);
    CHECK(nax_test::check_sizes(y, {{"i", nb}, {"out", no}}));
    nax_test::check_all(y, reference, 1e-5, 1e-6);

    // The JAX program's in_axes=(0, None, None), and i placed after `out`.
    auto y1 = nax::eval(nax::vmap<i>(layer, nax::in_axes(nax::mapped, nax::none, nax::none), nax::out_axes(nax::at<1>))(x, w, b));
    static_assert(std::is_same_v<decltype(y1), nax::Array<float, out, i>>);
    nax_test::check_all(y1, reference, 1e-5, 1e-6);

    // The mapped axis need not be first: x stored as (in, i).
    nax::Array<float, in, i> xt = nax::transpose<in, i>(x);
    nax::Array<float, i, out> y2 = nax::vmap<i>(layer)(xt, w, b);
    nax_test::check_all(y2, reference, 1e-5, 1e-6);
  }
}

TEST_CASE("vmap: in_axes from<A> maps an argument over its axis A, which takes the mapped name") {
  nax_test::random_source rng(7);
  // The JAX program's vmap(einsum('ab,bc->ac') + z, in_axes=(0, 1, 0)).
  const index_t nb = 3, na = 2, nk = 4, nc = 5;
  auto x = nax_test::random_array<double, i, j, k>(rng, {nb, na, nk});  // batch i, rows j, contraction k
  auto y = nax_test::random_array<double, k, out, in>(rng, {nk, nb, nc});  // batch axis called `out`
  auto z = nax_test::random_array<double, i, j, in>(rng, {nb, na, nc});
  auto op = [](const auto& a, const auto& b, const auto& c) { return nax::dot<k>(a, b) + c; };
  auto r = nax::eval(nax::vmap<i>(op, nax::in_axes(nax::mapped, nax::from<out>, nax::mapped))(x, y, z));
  static_assert(std::is_same_v<decltype(r), nax::Array<double, i, j, in>>);
  nax_test::check_all(r, [&](const index_map& idx) {
    double acc = at(z, idx);
    for (index_t q = 0; q < nk; ++q) acc += x(idx.at("i"), idx.at("j"), q) * y(q, idx.at("i"), idx.at("in"));
    return acc;
  });

  // One from<A> spec applies to every argument; an argument lacking A is ... required to have it,
  // so both arguments here have k.
  auto p = nax_test::random_array<float, k, j>(rng, {4, 3});
  auto q = nax_test::random_array<float, in, k>(rng, {2, 4});
  auto prod = nax::eval(nax::vmap<i>([](const auto& a, const auto& b) { return a * b; }, nax::in_axes(nax::from<k>))(p, q));
  static_assert(std::is_same_v<decltype(prod), nax::Array<float, i, j, in>>);
  CHECK(nax_test::check_sizes(prod, {{"i", 4}, {"j", 3}, {"in", 2}}));
  nax_test::check_all(prod, [&](const index_map& idx) {
    return p(idx.at("i"), idx.at("j")) * q(idx.at("in"), idx.at("i"));
  });
}

TEST_CASE("vmap: in_axes none broadcasts an argument; a number argument is broadcast too") {
  auto x = grid(3, 4);
  nax::Array<float, k> c({4}, {1, 2, 3, 4});
  auto f = [](const auto& row, const auto& constant, float scale) { return (row - constant) * scale; };
  auto y = nax::eval(nax::vmap<i>(f, nax::in_axes(nax::mapped, nax::none, nax::none))(x, c, 2.f));
  static_assert(std::is_same_v<decltype(y), nax::Array<float, i, k>>);
  nax_test::check_all(y, [&](const index_map& idx) { return (at(x, idx) - at(c, idx)) * 2.f; });
}

TEST_CASE("vmap: out_axes places the mapped axis; outputs that do not vary over it are broadcast") {
  auto x = grid(3, 4);  // (i=3, k=4)
  nax::Array<float, j> c({2}, {5, 7});
  auto f = [](const auto& row, const auto& constant) { return nax::tuple(row * 2.f, constant + 1.f, nax::sum(row)); };

  SUBCASE("default: first") {
    auto [a, b, s] = nax::vmap<i>(f)(x, c);
    auto ea = nax::eval(a);
    auto eb = nax::eval(b);
    auto es = nax::eval(s);
    static_assert(std::is_same_v<decltype(ea), nax::Array<float, i, k>>);
    static_assert(std::is_same_v<decltype(eb), nax::Array<float, i, j>>);
    static_assert(std::is_same_v<decltype(es), nax::Array<float, i>>);
    nax_test::check_all(ea, [&](const index_map& idx) { return 2.f * at(x, idx); });
    CHECK(nax_test::check_sizes(eb, {{"i", 3}, {"j", 2}}));
    nax_test::check_all(eb, [&](const index_map& idx) { return at(c, idx) + 1.f; });
    nax_test::check_all(es, [&](const index_map& idx) {
      float acc = 0;
      for (index_t q = 0; q < 4; ++q) acc += x(idx.at("i"), q);
      return acc;
    });
  }
  SUBCASE("one spec for every output: at<1>") {
    // at<1> is valid for the first two outputs (one visible axis each), and for the third... it
    // has none, so give one spec per output instead.
    auto g = [](const auto& row, const auto& constant) { return nax::tuple(row * 2.f, constant + 1.f); };
    auto [a, b] = nax::vmap<i>(g, nax::out_axes(nax::at<1>))(x, c);
    auto ea = nax::eval(a);
    auto eb = nax::eval(b);
    static_assert(std::is_same_v<decltype(ea), nax::Array<float, k, i>>);
    static_assert(std::is_same_v<decltype(eb), nax::Array<float, j, i>>);
    nax_test::check_all(ea, [&](const index_map& idx) { return 2.f * at(x, idx); });
    CHECK(nax_test::check_sizes(eb, {{"i", 3}, {"j", 2}}));
    nax_test::check_all(eb, [&](const index_map& idx) { return at(c, idx) + 1.f; });
  }
  SUBCASE("one spec per output, replicated included") {
    auto g = [](const auto& row, const auto& constant) {
      return nax::tuple(row * 2.f, constant + 1.f, nax::psum<i>(nax::sum(row)), nax::sum(row));
    };
    auto [a, b, total, s] =
        nax::vmap<i>(g, nax::out_axes(nax::at<1>, nax::replicated, nax::replicated, nax::at<0>))(x, c);
    auto ea = nax::eval(a);
    auto eb = nax::eval(b);
    auto et = nax::eval(total);
    auto es = nax::eval(s);
    static_assert(std::is_same_v<decltype(ea), nax::Array<float, k, i>>);
    static_assert(std::is_same_v<decltype(eb), nax::Array<float, j>>);  // replicated: no i
    static_assert(std::is_same_v<decltype(et), nax::Array<float>>);
    static_assert(std::is_same_v<decltype(es), nax::Array<float, i>>);
    nax_test::check_all(ea, [&](const index_map& idx) { return 2.f * at(x, idx); });
    nax_test::check_all(eb, [&](const index_map& idx) { return at(c, idx) + 1.f; });
    float all = 0;
    for (float v : x) all += v;
    CHECK(et.item() == all);
    CHECK(es(2) == 20 + 21 + 22 + 23);
  }
  SUBCASE("the last position of a rank-2 output") {
    nax::Array<float, i, j, k> x3({3, 2, 4});
    for (index_t n = 0; n < x3.size(); ++n) x3.data()[n] = float(n);
    auto r = nax::eval(nax::vmap<i>([](const auto& v) { return -v; }, nax::out_axes(nax::at<2>))(x3));
    static_assert(std::is_same_v<decltype(r), nax::Array<float, j, k, i>>);
    nax_test::check_all(r, [&](const index_map& idx) { return -at(x3, idx); });
  }
}

TEST_CASE("vmap: map_size gives the extent when no argument has the axis") {
  auto idx = nax::eval(nax::vmap<i>([] { return nax::axis_index<i>(); }, nax::map_size{5})());
  static_assert(std::is_same_v<decltype(idx), nax::Array<std::int32_t, i>>);
  REQUIRE(idx.extent<i>() == 5);
  for (index_t r = 0; r < 5; ++r) CHECK(idx(r) == r);

  // Unmapped arguments and map_size: the output is broadcast to the given size.
  nax::Array<float, k> c({2}, {3, 4});
  auto y = nax::eval(nax::vmap<i>([](const auto& v) { return v * 2.f + nax::cast<float>(nax::axis_index<i>()); },
                                  nax::map_size{4})(c));
  static_assert(std::is_same_v<decltype(y), nax::Array<float, i, k>>);
  nax_test::check_all(y, [&](const index_map& m) { return 2.f * at(c, m) + float(m.at("i")); });

  // axis_size reads the size.
  auto n = nax::eval(nax::vmap<i>([] { return nax::axis_size<i>(); }, nax::map_size{7}, nax::out_axes(nax::replicated))());
  CHECK(n.item() == 7);

  // map_size that agrees with the arguments is fine; one that does not is a shape_error.
  auto x = grid(3, 2);
  nax::Array<float, i, k> same = nax::vmap<i>([](const auto& v) { return v + 1.f; }, nax::map_size{3})(x);
  CHECK(same(2, 1) == 22.f);
  nax_test::check_shape_error([&] { (void)nax::vmap<i>([](const auto& v) { return v + 1.f; }, nax::map_size{5})(x); },
                              {"'i'", "map_size has 5", "argument 1 has 3"});
}

TEST_CASE("vmap: mapped arguments that disagree on the extent are a shape_error naming both") {
  auto x = grid(3, 2);
  nax::Array<float, i> y({4});
  nax::Array<float, k> z({2});
  auto f = [](const auto& a, const auto& b, const auto& c) { return a + b + c; };
  nax_test::check_shape_error([&] { (void)nax::vmap<i>(f)(x, z, y); }, {"'i'", "argument 1 has 3", "argument 3 has 4"});
  nax_test::check_shape_error([&] { (void)nax::vmap<i>(f)(z, y, x); }, {"'i'", "argument 2 has 4", "argument 3 has 3"});
  // Inside one pytree argument.
  auto g = [](const auto& pair) { return std::get<0>(pair) + std::get<1>(pair); };
  nax_test::check_shape_error([&] { (void)nax::vmap<i>(g)(std::tuple(x, y)); }, {"'i'", "3", "4"});
  // through from<A>: k's extent (2) against i's (3)
  nax_test::check_shape_error(
      [&] { (void)nax::vmap<i>(f, nax::in_axes(nax::mapped, nax::from<k>, nax::none))(x, z, z); },
      {"'i'", "argument 1 has 3", "argument 2 has 2"});
}

TEST_CASE("vmap: pytree arguments and outputs") {
  nax_test::random_source rng(11);
  auto x = nax_test::random_array<float, i, in>(rng, {4, 3});
  Params p{nax_test::random_array<float, out, in>(rng, {2, 3}), nax_test::random_array<float, out>(rng, {2})};

  // A Hana struct of parameters, broadcast (it has no i), and a std::tuple output.
  auto layer = [](const auto& xi, const Params& params) {
    auto h = nax::dot<in>(params.w, xi) + params.b;
    return nax::tuple(h, nax::sum(h * h));
  };
  auto [h, sq] = nax::vmap<i>(layer, nax::in_axes(nax::mapped, nax::none))(x, p);
  nax::Array<float, i, out> ha = h;
  nax::Array<float, i> sqa = sq;
  auto href = [&](index_t e, index_t o) {
    float acc = p.b(o);
    for (index_t q = 0; q < 3; ++q) acc += p.w(o, q) * x(e, q);
    return acc;
  };
  nax_test::check_all(ha, [&](const index_map& idx) { return href(idx.at("i"), idx.at("out")); });
  nax_test::check_all(sqa, [&](const index_map& idx) {
    float acc = 0;
    for (index_t o = 0; o < 2; ++o) acc += href(idx.at("i"), o) * href(idx.at("i"), o);
    return acc;
  }, 1e-5, 1e-6);

  // A std::tuple argument whose leaves are mapped or broadcast leaf by leaf, and a nested
  // tuple output.
  auto y = nax_test::random_array<float, k, i>(rng, {2, 4});
  nax::Array<float, k> c({2}, {1, 2});
  auto g = [](const auto& pair, const auto& constant) {
    const auto& [a, b] = pair;
    return std::tuple(std::tuple(b + constant), nax::sum(a));
  };
  auto [inner, total] = nax::vmap<i>(g)(std::tuple(x, y), c);
  nax::Array<float, i, k> ia = std::get<0>(inner);
  nax::Array<float, i> ta = total;
  nax_test::check_all(ia, [&](const index_map& idx) { return at(y, idx) + at(c, idx); });
  nax_test::check_all(ta, [&](const index_map& idx) {
    float acc = 0;
    for (index_t q = 0; q < 3; ++q) acc += x(idx.at("i"), q);
    return acc;
  }, 1e-5, 1e-6);
}

TEST_CASE("vmap: nested vmaps over different names") {
  nax_test::random_source rng(3);
  auto x = nax_test::random_array<double, i, k>(rng, {3, 5});
  auto y = nax_test::random_array<double, j, k>(rng, {4, 5});
  auto dotk = [](const auto& a, const auto& b) { return nax::sum(a * b); };
  auto reference = [&](const index_map& idx) {
    double acc = 0;
    for (index_t q = 0; q < 5; ++q) acc += x(idx.at("i"), q) * y(idx.at("j"), q);
    return acc;
  };

  auto ij = nax::eval(nax::vmap<i>(nax::vmap<j>(dotk))(x, y));
  static_assert(std::is_same_v<decltype(ij), nax::Array<double, i, j>>);
  nax_test::check_all(ij, reference);

  auto ji = nax::eval(nax::vmap<j>(nax::vmap<i>(dotk))(x, y));
  static_assert(std::is_same_v<decltype(ji), nax::Array<double, j, i>>);
  nax_test::check_all(ji, reference);

  // The inner map sees the outer member's slice; collectives over either name.
  auto f = [](const auto& a, const auto& b) {
    auto prod = nax::sum(a * b);
    return nax::tuple(prod - nax::psum<i>(prod), prod - nax::psum<j>(prod), nax::pmax<i, j>(prod));
  };
  auto [di, dj, mx] = nax::vmap<i>(nax::vmap<j>(f))(x, y);
  nax::Array<double, i, j> dia = di, dja = dj, mxa = mx;
  double largest = -1e300;
  for (index_t a = 0; a < 3; ++a)
    for (index_t b = 0; b < 4; ++b) largest = std::max(largest, reference({{"i", a}, {"j", b}}));
  nax_test::check_all(dia, [&](const index_map& idx) {
    double s = 0;
    for (index_t a = 0; a < 3; ++a) s += reference({{"i", a}, {"j", idx.at("j")}});
    return reference(idx) - s;
  });
  nax_test::check_all(dja, [&](const index_map& idx) {
    double s = 0;
    for (index_t b = 0; b < 4; ++b) s += reference({{"i", idx.at("i")}, {"j", b}});
    return reference(idx) - s;
  });
  nax_test::check_all(mxa, [&](const index_map&) { return largest; });

  // Two levels over one argument: x(i, k) mapped over i then k.
  auto idx2 = nax::eval(nax::vmap<i>(nax::vmap<k>([](const auto& v) { return v * 0.0 + nax::cast<double>(nax::axis_index<i, k>()); }))(x));
  nax_test::check_all(idx2, [&](const index_map& m) { return double(m.at("i") * 5 + m.at("k")); });
}

TEST_CASE("vmap: an inner vmap that shadows the outer name binds its own axis") {
  // JAX: vmap(lambda row: vmap(lambda y: psum(y, 'i'), axis_name='i', out_axes=None)(row),
  //           axis_name='i')(x): the inner psum sums over the inner axis only.
  auto x = grid(3, 4);  // (i=3, k=4)
  auto outer = [](const auto& row) {
    auto inner = nax::vmap<i>([](const auto& v) { return nax::psum<i>(v); }, nax::in_axes(nax::from<k>),
                              nax::out_axes(nax::replicated))(row);
    // After the inner map, i is the outer axis again.
    return nax::tuple(inner, nax::psum<i>(row), nax::cast<float>(nax::axis_index<i>()) + inner * 0.f);
  };
  auto [s_inner, s_outer, index] = nax::vmap<i>(outer)(x);
  nax::Array<float, i> a = s_inner;
  nax::Array<float, i, k> b = s_outer;
  nax::Array<float, i> c = index;
  for (index_t r = 0; r < 3; ++r) {
    CHECK(a(r) == float(4 * 10 * r + 0 + 1 + 2 + 3));
    CHECK(c(r) == float(r));
    for (index_t q = 0; q < 4; ++q) CHECK(b(r, q) == float(0 + 10 + 20 + 3 * q));
  }

  // axis_index and axis_size inside the inner map see the inner axis.
  auto outer2 = [](const auto& row) {
    return nax::vmap<i>([](const auto& v) { return nax::psum<i>(v * nax::cast<float>(nax::axis_index<i>())) +
                                                   nax::cast<float>(nax::axis_size<i>()) * 0.f; },
                        nax::in_axes(nax::from<k>), nax::out_axes(nax::replicated))(row);
  };
  nax::Array<float, i> w = nax::vmap<i>(outer2)(x);
  for (index_t r = 0; r < 3; ++r) {
    float expected = 0;
    for (index_t q = 0; q < 4; ++q) expected += float(q) * x(r, q);
    CHECK(w(r) == expected);
  }
}

TEST_CASE("vmap: an axis of extent 0 maps to empty results") {
  nax::Array<float, i, k> x({0, 3});
  auto [centred, total] = nax::vmap<i>([](const auto& v) { return nax::tuple(v - nax::psum<i>(v), nax::psum<i>(v)); },
                                       nax::out_axes(nax::at<0>, nax::replicated))(x);
  nax::Array<float, i, k> c = centred;
  nax::Array<float, k> t = total;
  CHECK(c.extent<i>() == 0);
  CHECK(c.extent<k>() == 3);
  REQUIRE(t.extent<k>() == 3);
  for (auto v : t) CHECK(v == 0.f);  // a sum over no members
  auto idx = nax::eval(nax::vmap<i>([] { return nax::axis_index<i>(); }, nax::map_size{0})());
  CHECK(idx.extent<i>() == 0);
}

TEST_CASE("vmap: results are lazy expressions, fused with what consumes them") {
  auto x = grid(3, 4);
  auto mapped = nax::vmap<i>([](const auto& v) { return v * 2.f + 1.f; })(x);
  // Assigned by name into another layout, and consumed by further expressions.
  nax::Array<float, k, i> t = mapped;
  nax_test::check_all(t, [&](const index_map& idx) { return 2.f * at(x, idx) + 1.f; });
  auto before = nax::detail::host::materialisation_count().load();
  nax::Array<float, i, k> u = mapped - x;
  CHECK(nax::detail::host::materialisation_count().load() == before);  // one elementwise pass
  nax_test::check_all(u, [&](const index_map& idx) { return at(x, idx) + 1.f; });
  CHECK(nax::sum(mapped).item() == doctest::Approx(2.0 * (0 + 1 + 2 + 3 + 10 + 11 + 12 + 13 + 20 + 21 + 22 + 23) + 12));
}

TEST_CASE("vmap: element types follow the collectives' rules") {
  auto xi = nax::eval(nax::arange<std::int32_t, i>(4));
  auto s = nax::eval(nax::vmap<i>([](const auto& v) { return nax::psum<i>(v); })(xi));
  static_assert(std::is_same_v<decltype(s)::value_type, std::int32_t>);
  for (index_t r = 0; r < 4; ++r) CHECK(s(r) == 6);
  auto m = nax::eval(nax::vmap<i>([](const auto& v) { return nax::pmean<i>(v); })(xi));
  static_assert(std::is_floating_point_v<decltype(m)::value_type>);
  for (index_t r = 0; r < 4; ++r) CHECK(m(r) == doctest::Approx(1.5));
  auto xf = nax::eval(nax::cast<float>(xi));
  auto mf = nax::eval(nax::vmap<i>([](const auto& v) { return nax::pmean<i>(v); })(xf));
  static_assert(std::is_same_v<decltype(mf)::value_type, float>);
  for (index_t r = 0; r < 4; ++r) CHECK(mf(r) == 1.5f);
}

// A shadowing inner vmap whose output still varies over its axis is rejected at compile time
// (tests/compile_fail/map_shadowed_reveal.cpp): JAX allows it, nax asks for another axis name.

TEST_CASE("vmap: calling a temporary vmap whose function owns arrays gives a result that outlives it") {
  // JAX users write vmap(lambda v: v + c)(x): here the closure's copy of c dies with the
  // temporary, so the result is evaluated before it is returned.
  auto x = grid(3, 4);
  nax::Array<float, k> c({4}, {1.f, 2.f, 3.f, 4.f});
  auto e = nax::vmap<i>([c](const auto& v) { return v + c; })(x);
  static_assert(std::is_same_v<decltype(e), nax::Array<float, i, k>>);
  for (index_t r = 0; r < 3; ++r)
    for (index_t q = 0; q < 4; ++q) CHECK(e(r, q) == x(r, q) + c(q));
  // A stateless function stays lazy; so does a held vmapped object.
  auto lazy = nax::vmap<i>([](const auto& v) { return v * 2.f; })(x);
  static_assert(!std::is_same_v<decltype(lazy), nax::Array<float, i, k>>);
  auto held = nax::vmap<i>([c](const auto& v) { return v * c; });
  nax::Array<float, i, k> y = held(x);
  for (index_t r = 0; r < 3; ++r)
    for (index_t q = 0; q < 4; ++q) CHECK(y(r, q) == x(r, q) * c(q));
}
