// The variables of a differentiation: one per floating-point Array leaf of the
// differentiated arguments. f sees the user's arrays unchanged (a Hana struct stays that
// struct), so a use of a variable is found at run time: a Leaf of the traced expression
// that views the variable's storage. Each variable owns its gradient accumulator, with the
// variable's axes followed by the output's mapped axes the variable lacks, in the memory
// space of the differentiation (space.hpp).
#pragma once
#include <memory>
#include <string>

#include "../expr/leaves.hpp"
#include "../tree/tree.hpp"
#include "../backend/host/space.hpp"

namespace nax::detail::ad {

template <class T, class VarAxes, class VarHidden, class Extra, class Space>
struct variable {
  using value_type = T;
  using var_axes = VarAxes;
  using var_hidden = VarHidden;  // the variable's own mapped axes (an argument mapped by vmap/xmap)
  using extra_axes = Extra;
  using grad_axes = concat_t<VarAxes, Extra>;
  const T* data = nullptr;
  std::array<index_t, VarAxes::size> extents{};
  std::array<index_t, VarAxes::size> strides{};
  std::shared_ptr<typename Space::template array<T, grad_axes>> grad;

  index_t span() const {
    index_t n = 1;
    for (std::size_t k = 0; k != VarAxes::size; ++k) {
      if (extents[k] == 0) return 0;
      n += (extents[k] - 1) * strides[k];
    }
    return n;
  }
  // Does [p, p + n) overlap this variable's storage?
  bool overlaps(const void* p, index_t n_bytes) const {
    const char* lo = reinterpret_cast<const char*>(data);
    const char* hi = lo + span() * static_cast<index_t>(sizeof(T));
    const char* q = static_cast<const char*>(p);
    return q < hi && lo < q + n_bytes;
  }
};

template <class Leaf>
struct require_differentiable_leaf {
  static_assert(array_like<Leaf>,
                "nax: grad differentiates with respect to arrays (nax::Array, views, expressions) or pytrees of "
                "them; a leaf of a differentiated argument is a number (Leaf)");
  static constexpr bool value = true;
};
template <class T, class Leaf>
struct require_floating_variable {
  static_assert(std::is_floating_point_v<T>,
                "nax: grad differentiates only with respect to floating-point arrays; a differentiated "
                "argument holds an integer or bool array (T, Leaf): move it to a non-differentiated "
                "position (grad<argnums...>) or cast it to float outside f");
  static constexpr bool value = true;
};

template <class Hout, class Space, class VarHidden = axes<>, class T, class... As, class Out>
auto make_variable(const ArrayView<const T, As...>& a, const Out& out) {
  using Extra = difference_t<Hout, axes<As...>>;
  variable<T, axes<As...>, VarHidden, Extra, Space> v;
  v.data = a.data();
  v.extents = a.extents();
  v.strides = a.strides();
  std::array<index_t, sizeof...(As) + Extra::size> ext{};
  for (std::size_t k = 0; k != sizeof...(As); ++k) ext[k] = v.extents[k];
  [&]<class... Xs>(axes<Xs...>) {
    std::size_t k = sizeof...(As);
    ((ext[k++] = extent_of<Xs>(out)), ...);
  }(Extra{});
  v.grad = std::make_shared<typename Space::template array<T, concat_t<axes<As...>, Extra>>>(ext);
  return v;
}

// A differentiated leaf that is not an Array (an expression: inside xmap, an argument's
// part on this device with its mapped axes hidden) is evaluated once into an array owned by
// the differentiation; f sees that array through the same mapped axes.
template <class X>
auto own_leaf(const X& x) {
  static_assert(require_differentiable_leaf<X>::value);
  auto e = as_expr(x);
  using E = decltype(e);
  using Space = space_of_t<E>;
  auto a = Space::template uninitialised<typename E::value_type, typename E::axes_type>(e.extents());
  auto ctx = Space::make_context();
  Space::assign(Space::writable(*a), e, ctx);
  auto leaf = leaf_of(std::as_const(*a).view(), a);
  return positional_relayout<identity_kind, typename E::axes_type, decltype(leaf), hidden_t<E>>(std::move(leaf));
}

template <class Tree>
constexpr bool all_arrays() {
  return []<class... Ls>(std::type_identity<std::tuple<Ls...>>) {
    return (is_array<std::remove_cvref_t<Ls>>::value && ... && true);  // nax::Array, nax::cuda::Array
  }(std::type_identity<decltype(tree_leaves(std::declval<const Tree&>()))>{});
}
template <class Tree>
constexpr bool all_array_like() {
  return []<class... Ls>(std::type_identity<std::tuple<Ls...>>) {
    return (array_like<std::remove_cvref_t<Ls>> && ... && true);
  }(std::type_identity<decltype(tree_leaves(std::declval<const Tree&>()))>{});
}

// The argument f sees: the user's own when it is not differentiated or is made of Arrays
// (a Hana struct stays that struct), else the tree with every leaf owned as above.
// A differentiated std::vector (a run-time number of layers): its gradients are the tape's
// (grad.hpp's vector_gradients), not static variables; inside xmap or vmap its elements'
// leaves are mapped parts, owned element by element as a static tree's are.
template <class Tree>
inline constexpr bool is_vector_argument_v = tree_kind_v<std::remove_cvref_t<Tree>> == tree_kind::std_vector;

template <class Vector>
struct require_vector_of_arrays {
  static_assert(!holds_vector<typename Vector::value_type>() && all_array_like<typename Vector::value_type>(),
                "nax: grad differentiates a std::vector whose elements are pytrees of arrays (Vector: its elements "
                "hold something else, such as numbers, or another std::vector)");
  static constexpr bool value = true;
};
template <class Tree>
struct require_vector_on_top {
  static_assert(!holds_vector<Tree>() || is_vector_argument_v<Tree>,
                "nax: grad differentiates a std::vector only as a whole argument (Tree holds one deeper down); "
                "pass the std::vector of layers as an argument of its own");
  static constexpr bool value = true;
};

template <bool Differentiated, class Arg>
decltype(auto) prepare_argument(const Arg& arg) {
  if constexpr (!Differentiated) {
    return (arg);
  } else if constexpr (is_vector_argument_v<Arg>) {
    static_assert(require_vector_of_arrays<Arg>::value);
    if constexpr (all_arrays<typename Arg::value_type>()) return (arg);
    else return tree_transform_leaves(arg, [](const auto& leaf) { return own_leaf(leaf); });  // a std::vector
  } else {
    static_assert(require_vector_on_top<Arg>::value);
    if constexpr (all_arrays<Arg>()) return (arg);
    else return tree_transform_leaves(arg, [](const auto& leaf) { return own_leaf(leaf); });
  }
}

// Which arguments a transform differentiates: argument P when Chosen::at<P> holds.
template <std::size_t... Argnums>
struct arguments_chosen {
  template <std::size_t P>
  static constexpr bool at = ((P == Argnums) || ...);
};
struct every_argument {
  template <std::size_t P>
  static constexpr bool at = true;
};

// The arguments as the differentiated function sees them, in one tuple: argument P through
// prepare_argument<Chosen::at<P>> (the same object, or its leaves owned), references kept.
template <class Chosen, class Tuple>
auto prepared_arguments(const Tuple& given) {
  return [&]<std::size_t... P>(std::index_sequence<P...>) {
    return std::tuple<decltype(prepare_argument<Chosen::template at<P>>(std::get<P>(given)))...>(
        prepare_argument<Chosen::template at<P>>(std::get<P>(given))...);
  }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}

// The storage of a differentiated leaf, as nax's host view type (the pointer may be device memory).
template <class Leaf>
auto argument_view(const Leaf& leaf) {
  using D = std::remove_cvref_t<Leaf>;
  if constexpr (is_array<D>::value) {
    if constexpr (requires { leaf.view().host_typed(); }) return leaf.view().host_typed();
    else return leaf.view();
  } else {
    return leaf.child.view;  // an owned leaf
  }
}

template <class Hout, class Space, class Leaf, class Out>
auto variable_of_leaf(const Leaf& leaf, const Out& out) {
  using D = std::remove_cvref_t<Leaf>;
  static_assert(require_floating_variable<typename D::value_type, D>::value);
  if constexpr (is_array<D>::value) return make_variable<Hout, Space>(argument_view(leaf), out);
  else return make_variable<Hout, Space, typename D::hidden_type>(argument_view(leaf), out);
}

// The variables of one differentiated argument (a pytree), in depth-first leaf order.
template <class Hout, class Space, class Tree, class Out>
auto variables_of(const Tree& tree, const Out& out) {
  if constexpr (is_vector_argument_v<Tree>) return std::tuple<>{};  // (the tape's)
  else return std::apply(
      [&](const auto&... leaf) { return std::make_tuple(variable_of_leaf<Hout, Space>(leaf, out)...); },
      tree_leaves(tree));
}

template <class Tree>
inline constexpr std::size_t leaf_count_v = [] {
  if constexpr (is_vector_argument_v<Tree>) return std::size_t{0};
  else return std::tuple_size_v<decltype(tree_leaves(std::declval<const Tree&>()))>;
}();


// Is leaf l exactly a view of variable v (same storage, extents and strides)?
template <class V, leaf_node L>
bool is_use_of(const V& v, const L& l) {
  using T = typename L::value_type;
  if constexpr (std::is_same_v<typename V::value_type, T> && std::is_same_v<typename V::var_axes, typename L::axes_type>) {
    if (l.view.data() == v.data && l.view.extents() == v.extents && l.view.strides() == v.strides) return true;
  }
  index_t n = 1;
  for (std::size_t k = 0; k != L::axes_type::size; ++k) {
    if (l.view.extents()[k] == 0) return false;
    n += (l.view.extents()[k] - 1) * (l.view.strides()[k] < 0 ? -l.view.strides()[k] : l.view.strides()[k]);
  }
  if (v.overlaps(l.view.data(), n * static_cast<index_t>(sizeof(T))))
    throw argument_error(
        "nax: grad: f reads a differentiated array through a view of part of it (an ArrayView made inside f); "
        "use nax::slice, transpose or rename on the array instead, which grad differentiates");
  return false;
}

// Does expression e depend on any variable, or on a buffer the tape tracks (st.record: an
// argument or the output of a recorded evaluation)? Integer and bool values never do, nor
// anything below stop_gradient.
template <class E, class St>
bool reaches(const E& e, const St& st) {
  if constexpr (!std::is_floating_point_v<typename E::value_type> || is_stop_gradient<E>::value) {
    return false;
  } else if constexpr (leaf_node<E>) {
    return std::apply([&](const auto&... v) { return (is_use_of(v, e) || ... || false); }, st.vars) ||
           (st.record && st.record->depends_leaf(e));
  } else if constexpr (requires { e.children; }) {
    return e.children.apply([&](const auto&... c) { return (reaches(c, st) || ... || false); });
  } else if constexpr (requires { e.a; e.b; }) {
    return reaches(e.a, st) || reaches(e.b, st);
  } else if constexpr (requires { e.child; }) {
    return reaches(e.child, st);
  } else {
    return false;
  }
}

}  // namespace nax::detail::ad
