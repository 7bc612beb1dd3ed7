// nax::io::save_tree / load_tree: a pytree of arrays as one .npz file (numpy's archive of .npy
// files: np.load(path) lists them). Each leaf is the entry "<path>.npy", its path the struct
// member names, tuple/array/vector indices joined by '/' ("layers/3/w"; a lone leaf: "arr_0",
// numpy's name); the entry "nax_axes.txt" holds one line per leaf, "<path>\t<axis>,<axis>",
// so that load_tree matches leaves by path and axes by name (a leaf saved as (in, hidden)
// loads into an Array<float, hidden, in> transposed). Written to a temporary file and renamed.
// load_tree refuses, with io_error naming the leaf: a missing entry, an entry the tree has no
// leaf for (a std::vector of another length), another dtype or rank, other axis names.
// io layer.
#pragma once
#include <boost/hana/first.hpp>
#include <boost/hana/string.hpp>
#include <set>
#include <sstream>

#include "../tree/tree.hpp"
#include "npy.hpp"
#include "zip.hpp"

namespace nax::io {
namespace detail {

inline constexpr const char* axes_entry = "nax_axes.txt";

template <class T>
struct is_host_array : std::false_type {};
template <class T, class... As>
struct is_host_array<Array<T, As...>> : std::true_type {};

template <class Leaf>
struct require_loadable_leaf {
  static_assert(is_host_array<Leaf>::value,
                "nax::io::load_tree fills the leaves of a tree of nax::Arrays and numbers; Leaf is neither (a "
                "view, an expression or a device array): load into a tree of nax::Arrays, then copy");
  static constexpr bool value = true;
};

// Calls f(path, leaf) for every leaf of tree, depth first, path as described above.
template <class Tree, class F>
void for_each_leaf_with_path(Tree&& tree, const std::string& path, F& f) {
  using D = std::remove_cvref_t<Tree>;
  using nax::detail::tree_kind;
  constexpr tree_kind kind = nax::detail::tree_kind_v<D>;
  static_assert(nax::detail::require_pytree<D>::value);
  auto child_path = [&](const std::string& key) { return path.empty() ? key : path + "/" + key; };
  if constexpr (kind == tree_kind::leaf) {
    f(path.empty() ? std::string("arr_0") : path, std::forward<Tree>(tree));
  } else if constexpr (kind == tree_kind::std_vector) {
    for (std::size_t i = 0; i != tree.size(); ++i) for_each_leaf_with_path(tree[i], child_path(std::to_string(i)), f);
  } else if constexpr (kind == tree_kind::hana_struct) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (for_each_leaf_with_path(nax::detail::tree_child<I>(tree),
                               child_path(boost::hana::to<const char*>(
                                   boost::hana::first(boost::hana::at_c<I>(boost::hana::accessors<D>())))),
                               f),
       ...);
    }(std::make_index_sequence<nax::detail::node_size_v<D>>{});
  } else if constexpr (kind != tree_kind::not_a_tree) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (for_each_leaf_with_path(nax::detail::tree_child<I>(tree), child_path(std::to_string(I)), f), ...);
    }(std::make_index_sequence<nax::detail::node_size_v<D>>{});
  }
}

template <class... As>
std::string axis_names_csv(nax::axes<As...>) {
  std::string t;
  for (const auto& n : axis_names<As...>()) t += (t.empty() ? "" : ",") + n;
  return t;
}

// A leaf as the host Array save_tree writes: an Array as it is, a view or an expression
// evaluated, a number as a rank-0 array.
template <class Leaf>
decltype(auto) leaf_array(const Leaf& leaf) {
  if constexpr (element<Leaf>) {
    Array<Leaf> a(std::array<index_t, 0>{});
    a.data()[0] = leaf;
    return a;
  } else if constexpr (nax::detail::is_array<Leaf>::value) {
    return (leaf);
  } else {
    using E = decltype(nax::detail::as_expr(leaf));
    return typename nax::detail::eval_array<E>::type(nax::detail::as_expr(leaf));
  }
}

// The text of the axes entry: path -> axis names.
inline std::map<std::string, std::vector<std::string>> parse_axes(std::string_view text, const std::string& file) {
  std::map<std::string, std::vector<std::string>> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      throw io_error("nax::io: " + file + ": a line of " + axes_entry + " has no tab: '" + std::string(line) + "'");
    std::vector<std::string> names;
    std::string_view rest = line.substr(tab + 1);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      names.emplace_back(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    out[std::string(line.substr(0, tab))] = std::move(names);
  }
  return out;
}

}  // namespace detail

// Saves every leaf of tree (Arrays, views, expressions, numbers; structs, tuples, std::array,
// std::vector) into one .npz file at path.
template <class Tree>
void save_tree(const std::filesystem::path& path, const Tree& tree) {
  detail::write_atomically(path, [&](std::ostream& out) {
    detail::zip_writer zip(out, path.string());
    std::string axes;
    auto add = [&](const std::string& leaf_path, const auto& leaf) {
      decltype(auto) a = detail::leaf_array(leaf);
      using A = std::remove_cvref_t<decltype(a)>;
      zip.add(leaf_path + ".npy", detail::npy_header_of(a), detail::npy_body(a));
      axes += leaf_path + "\t" + detail::axis_names_csv(typename A::axes_type{}) + "\n";
    };
    detail::for_each_leaf_with_path(tree, "", add);
    zip.add(detail::axes_entry, axes);
    zip.finish();
  });
}

// Fills every leaf of tree (nax::Arrays and numbers) from the .npz file at path: each leaf
// takes the extents stored for it; the tree gives the structure, the element types and the
// axis names. A file without the axes entry (written by numpy) is read with each leaf's axes
// in declared order.
template <class Tree>
void load_tree_into(const std::filesystem::path& path, Tree& tree) {
  const std::string file = path.string();
  const std::string bytes = detail::read_whole_file(path);
  detail::zip_entries entries = detail::zip_reader(bytes, file).entries();
  std::map<std::string, std::vector<std::string>> axes;
  const bool named = entries.count(detail::axes_entry) != 0;
  if (named) axes = detail::parse_axes(entries.at(detail::axes_entry), file);
  std::set<std::string> used;
  if (named) used.insert(detail::axes_entry);

  auto fill = [&](const std::string& leaf_path, auto& leaf) {
    using L = std::remove_cvref_t<decltype(leaf)>;
    const std::string entry = leaf_path + ".npy";
    const auto found = entries.find(entry);
    if (found == entries.end())
      throw io_error("nax::io: " + file + " has no entry '" + entry + "' for the leaf '" + leaf_path + "' of the tree");
    used.insert(entry);
    const std::string what = file + " (leaf '" + leaf_path + "')";
    if constexpr (element<L>) {
      leaf = detail::decode_npy<L>(found->second, what, {}).item();
    } else {
      static_assert(detail::require_loadable_leaf<L>::value);
      if constexpr (detail::is_host_array<L>::value) [&]<class... As>(nax::axes<As...>) {
        constexpr std::size_t N = sizeof...(As);
        std::array<std::size_t, N> from_file = detail::identity_order<N>();
        if (named) {
          const auto stored = axes.find(leaf_path);
          if (stored == axes.end())
            throw io_error("nax::io: " + what + ": " + detail::axes_entry + " has no axis names for it");
          const std::vector<std::string> want = detail::axis_names<As...>();
          std::vector<std::string> have = stored->second;
          bool same = have.size() == N;
          for (std::size_t k = 0; same && k != N; ++k) {
            const auto at = std::find(have.begin(), have.end(), want[k]);
            if (at == have.end()) same = false;
            else from_file[k] = static_cast<std::size_t>(at - have.begin());
          }
          if (!same)
            throw io_error("nax::io: " + what + " was saved with the axes " + detail::list_text(have) +
                           ", but the tree's leaf has the axes " + detail::list_text(want));
        }
        leaf = detail::decode_npy<typename L::value_type, As...>(found->second, what, from_file);
      }(typename L::axes_type{});
    }
  };
  detail::for_each_leaf_with_path(tree, "", fill);
  std::string extra;
  for (const auto& [name, body] : entries)
    if (!used.count(name)) extra += (extra.empty() ? "'" : ", '") + name + "'";
  if (!extra.empty())
    throw io_error("nax::io: " + file + " holds entries the tree has no leaf for: " + extra +
                   " (a std::vector of another length, or another tree)");
}

// load_tree_into on a copy of like, returned.
template <class Tree>
Tree load_tree(const std::filesystem::path& path, Tree like) {
  load_tree_into(path, like);
  return like;
}

}  // namespace nax::io
