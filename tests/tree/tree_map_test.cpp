// tree_map (tree/map.hpp, tree/rebuild.hpp): leafwise maps over structs, tuples, pairs,
// std::arrays and hana::tuples of arrays, expressions and numbers; the struct rebuilt when the
// results fit its members, a std::tuple otherwise; several trees at once; what f receives.
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

#include <doctest/doctest.h>

#include <array>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(hidden);

namespace hana = boost::hana;
using nax::index_t;

// 0.5, 1.5, 2.5, ... times scale, in storage order: every element distinct.
template <class T, class... As>
nax::Array<T, As...> filled(std::array<index_t, sizeof...(As)> extents, double scale = 1.0) {
  nax::Array<T, As...> a(extents);
  index_t k = 0;
  for (auto& x : a) x = static_cast<T>((static_cast<double>(k++) + 0.5) * scale);
  return a;
}

struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (nax::Array<float, in, out>, w), (nax::Array<float, out>, b));
};

struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (nax::Array<float, in, hidden>, w), (nax::Array<float, hidden>, b));
};

// Nested structs, a std::tuple and a std::array of arrays, and a number.
struct Model {
  BOOST_HANA_DEFINE_STRUCT(Model, (Layer, first), (Params, second),
                           (std::tuple<nax::Array<float, out>, nax::Array<double, in>>, extra),
                           (std::array<nax::Array<float, in>, 2>, heads), (float, temperature));
};

Params make_params(double scale) {
  return Params{filled<float, in, out>({3, 2}, scale), filled<float, out>({2}, scale)};
}

Model make_model(double scale) {
  return Model{Layer{filled<float, in, hidden>({3, 4}, scale), filled<float, hidden>({4}, scale)},
               make_params(scale),
               {filled<float, out>({2}, scale), filled<double, in>({3}, scale)},
               {filled<float, in>({3}, scale), filled<float, in>({3}, 2 * scale)},
               static_cast<float>(scale)};
}

// Checks that every element of result is update(p, g) of the elements of p and g.
template <class R, class P, class G, class U>
void check_elementwise(const R& result, const P& p, const G& g, U update) {
  REQUIRE(result.extents() == p.extents());
  auto r = result.begin();
  auto q = g.begin();
  for (auto x : p) CHECK(*r++ == doctest::Approx(update(x, *q++)));
}

}  // namespace

TEST_CASE("tree_map: the parameter update of the JAX program produces a Params") {
  const Params params = make_params(1.0);
  const Params grads = make_params(10.0);
  auto updated = nax::tree_map([](auto p, auto g) { return p - 0.01f * g; }, params, grads);
  static_assert(std::is_same_v<decltype(updated), Params>);
  auto update = [](float p, float g) { return p - 0.01f * g; };
  check_elementwise(updated.w, params.w, grads.w, update);
  check_elementwise(updated.b, params.b, grads.b, update);
  CHECK(updated.w(2, 1) == doctest::Approx(5.5f - 0.01f * 55.f));
  // The inputs are untouched.
  CHECK(params.w(2, 1) == 5.5f);
}

TEST_CASE("tree_map: f sees an Array leaf as its const view, other leaves as they are") {
  Params params = make_params(1.0);
  auto x = filled<float, in>({3});
  auto e = x + 1.f;
  nax::tree_map(
      [](auto p, auto view, auto expression, auto number) {
        static_assert(std::is_same_v<decltype(p), nax::ArrayView<const float, in, out>>);
        static_assert(std::is_same_v<decltype(view), nax::ArrayView<float, in>>);
        static_assert(nax::expression<decltype(expression)>);
        static_assert(std::is_same_v<decltype(number), int>);
        return 0;
      },
      params.w, x.view(), e, 3);
  // The view points into the tree: no copy of the data.
  nax::tree_map(
      [&](auto p) {
        CHECK(p.data() == params.w.data());
        return 0;
      },
      params.w);
}

TEST_CASE("tree_map: nested structs, tuples and std::arrays of arrays keep their structure") {
  const Model model = make_model(1.0);
  const Model grads = make_model(4.0);
  auto updated = nax::tree_map([](auto p, auto g) { return p - 0.5f * g; }, model, grads);
  static_assert(std::is_same_v<decltype(updated), Model>);
  auto update = [](double p, double g) { return p - 0.5 * g; };
  check_elementwise(updated.first.w, model.first.w, grads.first.w, update);
  check_elementwise(updated.first.b, model.first.b, grads.first.b, update);
  check_elementwise(updated.second.w, model.second.w, grads.second.w, update);
  check_elementwise(updated.second.b, model.second.b, grads.second.b, update);
  check_elementwise(std::get<0>(updated.extra), std::get<0>(model.extra), std::get<0>(grads.extra), update);
  check_elementwise(std::get<1>(updated.extra), std::get<1>(model.extra), std::get<1>(grads.extra), update);
  check_elementwise(updated.heads[0], model.heads[0], grads.heads[0], update);
  check_elementwise(updated.heads[1], model.heads[1], grads.heads[1], update);
  CHECK(updated.temperature == doctest::Approx(1.0 - 0.5 * 4.0));
}

TEST_CASE("tree_map: a std::tuple of arrays gives a std::tuple of lazy expressions") {
  auto a = filled<float, in, out>({2, 3});
  auto b = filled<float, out>({3}, 2.0);
  auto tree = std::tie(a, b);  // a tuple of references is a tree too
  auto doubled = nax::tree_map([](auto x) { return x * 2.f; }, tree);
  static_assert(nax::expression<std::tuple_element_t<0, decltype(doubled)>>);
  static_assert(nax::expression<std::tuple_element_t<1, decltype(doubled)>>);
  nax::Array<float, in, out> a2 = std::get<0>(doubled);
  nax::Array<float, out> b2 = std::get<1>(doubled);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(a2(i, j) == 2 * a(i, j));
  for (index_t j = 0; j < 3; ++j) CHECK(b2(j) == 2 * b(j));
}

TEST_CASE("tree_map: std::pair, hana::tuple and std::array keep their kind") {
  auto a = filled<float, in>({4});
  auto b = filled<double, out>({2});

  auto pair = nax::tree_map([](auto x) { return nax::eval(-x); }, std::pair<nax::Array<float, in>, nax::Array<double, out>>(a, b));
  static_assert(std::is_same_v<decltype(pair), std::pair<nax::Array<float, in>, nax::Array<double, out>>>);
  CHECK(pair.first(3) == -a(3));
  CHECK(pair.second(1) == -b(1));

  auto twice = [](auto x) {
    if constexpr (nax::array_like<decltype(x)>)
      return nax::eval(x + x);
    else
      return x + x;
  };
  auto htuple = nax::tree_map(twice, hana::make_tuple(a, b, 2.5));
  static_assert(std::is_same_v<decltype(htuple),
                               hana::tuple<nax::Array<float, in>, nax::Array<double, out>, double>>);
  CHECK(hana::at_c<0>(htuple)(2) == 2 * a(2));
  CHECK(hana::at_c<1>(htuple)(0) == 2 * b(0));
  CHECK(hana::at_c<2>(htuple) == 5.0);

  std::array<nax::Array<float, in>, 3> heads{a, filled<float, in>({4}, 3.0), filled<float, in>({4}, 5.0)};
  auto scaled = nax::tree_map([](auto x) { return nax::eval(x * 0.5f); }, heads);
  static_assert(std::is_same_v<decltype(scaled), std::array<nax::Array<float, in>, 3>>);
  for (std::size_t k = 0; k < 3; ++k)
    for (index_t i = 0; i < 4; ++i) CHECK(scaled[k](i) == heads[k](i) * 0.5f);
}

TEST_CASE("tree_map: a std::array whose results differ in type gives a std::tuple") {
  std::array<int, 3> xs{1, 2, 3};
  auto mixed = nax::detail::tree_transform_leaves_indexed(xs, [](int x, auto index) {
    if constexpr (index == 1)
      return x * 0.5;
    else
      return x;
  });
  static_assert(std::is_same_v<decltype(mixed), std::tuple<int, double, int>>);
  CHECK(mixed == std::tuple<int, double, int>(1, 1.0, 3));
}

TEST_CASE("tree_map: a struct whose results do not fit its members becomes a std::tuple") {
  const Params params = make_params(1.0);

  SUBCASE("f removes axes (the results are rank 0)") {
    auto sums = nax::tree_map([](auto p) { return nax::sum(p); }, params);
    static_assert(nax::expression<std::tuple_element_t<0, decltype(sums)>>);
    auto [sw, sb] = sums;
    CHECK(sw.item() == doctest::Approx(0.5 + 1.5 + 2.5 + 3.5 + 4.5 + 5.5));
    CHECK(sb.item() == doctest::Approx(2.0));
  }
  SUBCASE("a double result would narrow into a float member") {
    auto doubles = nax::tree_map([](auto p) { return nax::cast<double>(p); }, params);
    static_assert(std::tuple_size_v<decltype(doubles)> == 2);
    nax::Array<double, in, out> w = std::get<0>(doubles);
    CHECK(w(1, 1) == 3.5);
  }
  SUBCASE("an int member does not take a floating result, a float member takes a double") {
    struct Counts {
      BOOST_HANA_DEFINE_STRUCT(Counts, (int, steps), (float, rate));
    };
    auto halved = nax::tree_map([](auto x) { return x * 0.5; }, Counts{3, 1.f});
    static_assert(std::is_same_v<decltype(halved), std::tuple<double, double>>);
    CHECK(halved == std::tuple<double, double>(1.5, 0.5));
    auto scaled = nax::tree_map([](auto x) { return x * 2; }, Counts{3, 1.f});
    static_assert(std::is_same_v<decltype(scaled), Counts>);
    CHECK(scaled.steps == 6);
    CHECK(scaled.rate == 2.f);
    auto rated = nax::tree_map([](auto x) { return x * 0.5; }, std::tuple<float, double>{1.f, 1.0});
    static_assert(std::is_same_v<decltype(rated), std::tuple<double, double>>);
  }
}

TEST_CASE("tree_map: an expression with the member's axes in another order is assigned by name") {
  const Params params = make_params(1.0);
  auto via_names = nax::detail::tree_transform_leaves(params, [](const auto& p) {
    if constexpr (nax::detail::rank_v<decltype(p.view())> == 2)
      return nax::transpose<out, in>(p);
    else
      return nax::eval(p);
  });
  static_assert(std::is_same_v<decltype(via_names), Params>);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(via_names.w(i, j) == params.w(i, j));
}

TEST_CASE("tree_map: several trees, numbers as leaves, expressions as leaves") {
  auto x = filled<float, in>({3});
  auto y = filled<float, in>({3}, 10.0);
  auto tree1 = std::make_tuple(1.5f, x + 1.f, 2);
  auto tree2 = std::make_tuple(2.0f, y.view(), 3);
  auto tree3 = std::make_tuple(0.5f, x, 4);
  auto combined = nax::tree_map([](auto a, auto b, auto c) { return a * b + c; }, tree1, tree2, tree3);
  static_assert(std::is_same_v<std::tuple_element_t<0, decltype(combined)>, float>);
  static_assert(std::is_same_v<std::tuple_element_t<2, decltype(combined)>, int>);
  CHECK(std::get<0>(combined) == 1.5f * 2.0f + 0.5f);
  CHECK(std::get<2>(combined) == 2 * 3 + 4);
  nax::Array<float, in> middle = std::get<1>(combined);
  for (index_t i = 0; i < 3; ++i) CHECK(middle(i) == doctest::Approx((x(i) + 1.f) * y(i) + x(i)));

  // A number tree alone.
  auto numbers = nax::tree_map([](auto a, auto b) { return a + b; }, std::pair{1, 2.5}, std::pair{3, 0.5});
  static_assert(std::is_same_v<decltype(numbers), std::pair<int, double>>);
  CHECK(numbers == std::pair{4, 3.0});
  // A single leaf is a tree.
  CHECK(nax::tree_map([](auto a) { return a * 2; }, 21) == 42);
}

TEST_CASE("tree_map: f is called once per leaf, depth first, struct members in order") {
  const Model model = make_model(1.0);
  std::vector<index_t> sizes;
  nax::tree_map(
      [&](auto leaf) {
        if constexpr (nax::array_like<decltype(leaf)>)
          sizes.push_back(leaf.size());
        else
          sizes.push_back(-1);
        return 0;
      },
      model);
  // first.w, first.b, second.w, second.b, extra<0>, extra<1>, heads[0], heads[1], temperature
  CHECK(sizes == std::vector<index_t>{12, 4, 6, 2, 2, 3, 3, 3, -1});
}

TEST_CASE("tree_map: nested one-element tuples and empty nodes") {
  auto a = filled<float, in>({2});
  auto nested = nax::tree_map([](auto x) { return nax::eval(x * 3.f); },
                              std::tuple<std::tuple<nax::Array<float, in>>>(std::tuple<nax::Array<float, in>>(a)));
  static_assert(std::is_same_v<decltype(nested), std::tuple<std::tuple<nax::Array<float, in>>>>);
  CHECK(std::get<0>(std::get<0>(nested))(1) == 3 * a(1));

  auto empty = nax::tree_map([](auto x) { return x; }, std::tuple<>{});
  static_assert(std::is_same_v<decltype(empty), std::tuple<>>);
  static_assert(nax::tree_size_v<std::tuple<>> == 0);
}

namespace {
// Not an aggregate: rebuilt by default construction and member assignment.
struct WithConstructor {
  WithConstructor() : scale(1.f) {}
  WithConstructor(nax::Array<float, in> weights, float s) : weights(std::move(weights)), scale(s) {}
  BOOST_HANA_DEFINE_STRUCT(WithConstructor, (nax::Array<float, in>, weights), (float, scale));
};
}  // namespace

TEST_CASE("tree_map: a struct with constructors is rebuilt member by member") {
  WithConstructor s(filled<float, in>({3}), 2.f);
  auto doubled = nax::tree_map([](auto x) { return x + x; }, s);
  static_assert(std::is_same_v<decltype(doubled), WithConstructor>);
  CHECK(doubled.weights(2) == 5.f);
  CHECK(doubled.scale == 4.f);
}

TEST_CASE("tree_map: a temporary tree and the result of nax::tuple") {
  auto result = nax::tree_map([](auto p, auto g) { return p - g; }, make_params(2.0), make_params(1.0));
  static_assert(std::is_same_v<decltype(result), Params>);
  CHECK(result.w(1, 0) == doctest::Approx(2.5));

  auto a = filled<float, in>({3});
  auto outputs = nax::tuple(nax::eval(a * 2.f), 1.5f);
  auto shifted = nax::tree_map([](auto x) { return x + 1.f; }, outputs);
  auto [array_part, number_part] = shifted;
  CHECK(number_part == 2.5f);
  CHECK(nax::eval(array_part)(2) == doctest::Approx(6.f));
}

TEST_CASE("tree_map: an empty std::array maps to an empty std::array of the result type") {
  std::array<nax::Array<float, in>, 0> none{};
  auto mapped = nax::tree_map([](auto x) { return nax::eval(x * 2.f); }, none);
  static_assert(std::is_same_v<decltype(mapped), std::array<nax::Array<float, in>, 0>>);
  auto lazy = nax::tree_map([](auto x, auto y) { return x + y; }, none, none);
  static_assert(std::tuple_size_v<decltype(lazy)> == 0);
  static_assert(nax::expression<typename decltype(lazy)::value_type>);
}
