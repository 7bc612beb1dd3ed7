// tree_leaves, tree_size_v, tree_reduce, nax::tuple and the helpers for transforms
// (detail::tree_for_each_leaf, tree_transform_leaves[_indexed]), the pytree concept and the
// structure comparison (tree/leaves.hpp, reduce.hpp, tuple.hpp, traits.hpp, structure.hpp).
#include <nax/nax.hpp>
#include <nax/tree/tree.hpp>

#include <doctest/doctest.h>

#include <array>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
NAX_AXIS(in);
NAX_AXIS(out);

namespace hana = boost::hana;
using nax::index_t;

using W = nax::Array<float, in, out>;
using B = nax::Array<float, out>;

struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (W, w), (B, b));
};

struct Net {
  BOOST_HANA_DEFINE_STRUCT(Net, (Params, layer), (std::array<B, 2>, biases), (hana::tuple<float, int>, knobs));
};

Net make_net() {
  return Net{Params{nax::full<float, in, out>(1.f, 3, 2), nax::full<float, out>(2.f, 2)},
             {nax::full<float, out>(3.f, 2), nax::full<float, out>(4.f, 2)},
             hana::make_tuple(0.5f, 7)};
}
}  // namespace

TEST_CASE("tree_size_v counts leaves at compile time") {
  static_assert(nax::tree_size_v<Params> == 2);
  static_assert(nax::tree_size_v<Net> == 6);
  static_assert(nax::tree_size_v<const Net&> == 6);
  static_assert(nax::tree_size_v<float> == 1);
  static_assert(nax::tree_size_v<std::pair<std::tuple<>, std::array<int, 4>>> == 4);
}

TEST_CASE("the pytree concept and structure comparison") {
  static_assert(nax::pytree<Net>);
  static_assert(nax::pytree<std::tuple<W, std::array<double, 3>, std::pair<int, bool>>>);
  static_assert(nax::pytree<decltype(nax::full<float, in>(1.f, 3) * 2.f)>);
  static_assert(!nax::pytree<std::string>);
  static_assert(!nax::pytree<std::tuple<W, std::string>>);
  static_assert(!nax::pytree<int*>);
  static_assert(nax::tree_leaf<nax::ArrayView<const float, in>>);
  static_assert(!nax::tree_leaf<Params>);

  using nax::detail::same_structure_v;
  static_assert(same_structure_v<Params, const Params&>);
  static_assert(same_structure_v<std::array<W, 2>, std::array<double, 2>>);  // leaves of any type
  static_assert(same_structure_v<std::tuple<W, float>, std::tuple<nax::ArrayView<float, in, out>, int>>);
  static_assert(!same_structure_v<std::array<W, 2>, std::array<W, 3>>);
  static_assert(!same_structure_v<Params, std::tuple<W, B>>);  // a struct is not a tuple
  static_assert(!same_structure_v<std::tuple<W, B>, std::pair<W, B>>);
  static_assert(!same_structure_v<std::tuple<W, Params>, std::tuple<W, B>>);
}

TEST_CASE("tree_leaves: references in depth-first order, struct members in declaration order") {
  Net net = make_net();
  auto leaves = nax::tree_leaves(net);
  static_assert(std::is_same_v<decltype(leaves), std::tuple<W&, B&, B&, B&, float&, int&>>);
  CHECK(&std::get<0>(leaves) == &net.layer.w);
  CHECK(&std::get<1>(leaves) == &net.layer.b);
  CHECK(&std::get<2>(leaves) == &net.biases[0]);
  CHECK(&std::get<3>(leaves) == &net.biases[1]);
  CHECK(&std::get<4>(leaves) == &hana::at_c<0>(net.knobs));
  CHECK(&std::get<5>(leaves) == &hana::at_c<1>(net.knobs));
  // Writable through the references.
  std::get<4>(leaves) = 0.25f;
  CHECK(hana::at_c<0>(net.knobs) == 0.25f);

  static_assert(std::is_same_v<decltype(nax::tree_leaves(std::as_const(net))),
                               std::tuple<const W&, const B&, const B&, const B&, const float&, const int&>>);
}

TEST_CASE("tree_leaves: an rvalue tree gives its leaves moved out") {
  Net net = make_net();
  const float* w_data = net.layer.w.data();
  auto leaves = nax::tree_leaves(std::move(net));
  static_assert(std::is_same_v<decltype(leaves), std::tuple<W, B, B, B, float, int>>);
  CHECK(std::get<0>(leaves).data() == w_data);  // moved, not copied
  CHECK(std::get<3>(leaves)(1) == 4.f);
  CHECK(std::get<5>(leaves) == 7);
}

TEST_CASE("tree_reduce: a left fold over the leaves") {
  const Net net = make_net();
  auto total_size = nax::tree_reduce(
      [](index_t acc, const auto& leaf) {
        if constexpr (nax::array_like<decltype(leaf)>)
          return acc + leaf.size();
        else
          return acc + 1;  // a number counts as one element
      },
      net, index_t{0});
  CHECK(total_size == 6 + 2 + 2 + 2 + 1 + 1);

  // Left to right: the order of the leaves shows in a non-commutative fold.
  std::vector<int> order;
  auto last = nax::tree_reduce(
      [&](int acc, const auto&) {
        order.push_back(acc);
        return acc + 1;
      },
      net, 0);
  CHECK(last == 6);
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4, 5});

  // The accumulator's type may change: a sum of squares built as one expression.
  const Params params = net.layer;
  auto sum_of_squares = nax::tree_reduce(
      [](auto acc, auto leaf) { return acc + nax::sum(nax::square(leaf)); }, params, 0.f);
  static_assert(nax::expression<decltype(sum_of_squares)>);
  CHECK(sum_of_squares.item() == doctest::Approx(6 * 1.f + 2 * 4.f));
}

TEST_CASE("nax::tuple: several outputs, read with structured bindings, usable as a pytree") {
  auto w = nax::full<float, in, out>(1.f, 2, 2);
  auto [first, second] = nax::tuple(w, 0.5f);
  static_assert(std::is_same_v<decltype(nax::tuple(w, 0.5f)), std::tuple<W, float>>);
  CHECK(first(1, 1) == 1.f);
  CHECK(first.data() != w.data());  // a copy of an lvalue
  CHECK(second == 0.5f);

  auto step = [](const Params& params, float loss) {
    return nax::tuple(nax::tree_map([](auto p) { return p * 2.f; }, params), loss);
  };
  auto [new_params, loss] = step(Params{w, nax::full<float, out>(3.f, 2)}, 0.25f);
  static_assert(std::is_same_v<decltype(new_params), Params>);
  CHECK(new_params.b(0) == 6.f);
  CHECK(loss == 0.25f);
  static_assert(nax::tree_size_v<decltype(nax::tuple(Params{}, 1.f))> == 3);
}

TEST_CASE("detail::tree_for_each_leaf visits leaves with their index and can write into them") {
  Net net = make_net();
  std::vector<std::size_t> indices;
  nax::detail::tree_for_each_leaf(net, [&](auto& leaf, auto index) {
    static_assert(std::is_same_v<decltype(index), std::integral_constant<std::size_t, decltype(index)::value>>);
    indices.push_back(index);
    if constexpr (nax::array_like<decltype(leaf)>)
      for (auto& x : leaf) x = static_cast<float>(index());
    else
      leaf = static_cast<std::remove_cvref_t<decltype(leaf)>>(10 * index());
  });
  CHECK(indices == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
  CHECK(net.layer.w(2, 1) == 0.f);
  CHECK(net.layer.b(1) == 1.f);
  CHECK(net.biases[1](0) == 3.f);
  CHECK(hana::at_c<0>(net.knobs) == 40.f);
  CHECK(hana::at_c<1>(net.knobs) == 50);
}

TEST_CASE("detail::tree_transform_leaves sees the leaves themselves; the indexed form unflattens") {
  Net net = make_net();
  // The leaves themselves (not views), forwarded: an rvalue tree's arrays can be moved out.
  const float* w_data = net.layer.w.data();
  auto moved = nax::detail::tree_transform_leaves(std::move(net), [](auto&& leaf) {
    static_assert(std::is_rvalue_reference_v<decltype(leaf)>);
    return std::move(leaf);
  });
  static_assert(std::is_same_v<decltype(moved), Net>);
  CHECK(moved.layer.w.data() == w_data);

  // Rebuild a tree of the same structure from a flat tuple of leaves (what grad needs).
  auto flat = nax::tree_leaves(std::as_const(moved));
  auto rebuilt = nax::detail::tree_transform_leaves_indexed(
      moved, [&](const auto&, auto index) { return nax::detail::leaf_argument(std::get<index>(flat)); });
  static_assert(std::is_same_v<decltype(rebuilt), Net>);
  CHECK(rebuilt.biases[0](1) == 3.f);
  CHECK(rebuilt.layer.w.data() != w_data);  // a view result is evaluated into a new array

  // Tagging each leaf with its position.
  auto tags = nax::detail::tree_transform_leaves_indexed(std::pair<float, std::tuple<int, int>>{},
                                                         [](auto, auto index) { return index(); });
  static_assert(std::is_same_v<decltype(tags), std::pair<std::size_t, std::tuple<std::size_t, std::size_t>>>);
  CHECK(tags == std::pair<std::size_t, std::tuple<std::size_t, std::size_t>>{0, {1, 2}});
}
