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
#include <exception>
#include <functional>
#include <set>
#include <sstream>

#include "../mesh/global_array.hpp"
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
  static_assert(is_host_array<Leaf>::value || nax::detail::is_global_array_v<Leaf>,
                "nax::io::load_tree fills the leaves of a tree of nax::Arrays, GlobalArrays and numbers; Leaf is "
                "none of them (a view, an expression or a device array): load into a tree of nax::Arrays, then copy");
  static constexpr bool value = true;
};

// Calls f(path, leaf) for every leaf of tree, depth first, path as described above. A
// GlobalArray is a leaf here (a checkpoint holds it whole), though not a pytree leaf elsewhere.
template <class Tree, class F>
void for_each_leaf_with_path(Tree&& tree, const std::string& path, F& f) {
  using D = std::remove_cvref_t<Tree>;
  using nax::detail::tree_kind;
  constexpr tree_kind kind = nax::detail::tree_kind_v<D>;
  if constexpr (!nax::detail::is_global_array_v<D>) static_assert(nax::detail::require_pytree<D>::value);
  auto child_path = [&](const std::string& key) { return path.empty() ? key : path + "/" + key; };
  if constexpr (kind == tree_kind::leaf || nax::detail::is_global_array_v<D>) {
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
// evaluated, a number as a rank-0 array, a GlobalArray gathered (a collective).
template <class Leaf>
decltype(auto) leaf_array(const Leaf& leaf) {
  if constexpr (nax::detail::is_global_array_v<Leaf>) {
    return leaf.gather();
  } else if constexpr (element<Leaf>) {
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

// Who writes a checkpoint when the tree holds GlobalArrays whose mesh spans processes (MPI):
// the process holding mesh device 0 of the first such leaf. Every process gathers each
// GlobalArray leaf with it (a collective), and all agree at the end on whether the file was
// written, through that leaf's mesh.
struct checkpoint_writer {
  bool writes = true;
  std::function<bool(bool)> in_every_process;  // empty: every process writes (no such leaf)
};
template <class Tree>
checkpoint_writer writer_of(const Tree& tree) {
  checkpoint_writer w;
  auto find = [&](const std::string&, const auto& leaf) {
    using L = std::remove_cvref_t<decltype(leaf)>;
    if constexpr (nax::detail::is_global_array_v<L>) {
      if (!w.in_every_process && leaf.spans_processes()) {
        w.writes = leaf.holds(0);
        w.in_every_process = [&leaf](bool ok) { return leaf.in_every_process(ok); };
      }
    }
  };
  for_each_leaf_with_path(tree, "", find);
  return w;
}

// Gathers the GlobalArray leaves after the first `skip` and drops them: a process that does
// not write (or stopped writing) still takes part in every collective the writer runs.
template <class Tree>
void gather_global_leaves(const Tree& tree, std::size_t skip) {
  std::size_t seen = 0;
  auto gather = [&](const std::string&, const auto& leaf) {
    if constexpr (nax::detail::is_global_array_v<std::remove_cvref_t<decltype(leaf)>>)
      if (seen++ >= skip) (void)leaf.gather();
  };
  for_each_leaf_with_path(tree, "", gather);
}

}  // namespace detail

// Saves every leaf of tree (Arrays, views, expressions, numbers, GlobalArrays; structs,
// tuples, std::array, std::vector) into one .npz file at path. A GlobalArray is written whole,
// as its gather() (the file is the one its gathered tree would give). When a GlobalArray's
// mesh spans processes, every process must call save_tree with the same tree: each leaf is
// gathered with all of them, one process writes the file (detail::checkpoint_writer), and
// every process raises io_error if the file was not written.
template <class Tree>
void save_tree(const std::filesystem::path& path, const Tree& tree) {
  const detail::checkpoint_writer writer = detail::writer_of(tree);
  std::size_t gathered = 0;  // GlobalArray leaves the writer has gathered so far
  auto write = [&] {
    detail::write_atomically(path, [&](std::ostream& out) {
      detail::zip_writer zip(out, path.string());
      std::string axes;
      auto add = [&](const std::string& leaf_path, const auto& leaf) {
        if constexpr (nax::detail::is_global_array_v<std::remove_cvref_t<decltype(leaf)>>) ++gathered;
        decltype(auto) a = detail::leaf_array(leaf);
        using A = std::remove_cvref_t<decltype(a)>;
        zip.add(leaf_path + ".npy", detail::npy_header_of(a), detail::npy_body(a));
        axes += leaf_path + "\t" + detail::axis_names_csv(typename A::axes_type{}) + "\n";
      };
      detail::for_each_leaf_with_path(tree, "", add);
      zip.add(detail::axes_entry, axes);
      zip.finish();
    });
  };
  if (!writer.in_every_process) return write();
  std::exception_ptr failure;
  if (writer.writes) {
    try {
      write();
    } catch (...) {
      failure = std::current_exception();
      try {
        detail::gather_global_leaves(tree, gathered);  // the others are waiting in these
      } catch (...) {
      }
    }
  } else {
    detail::gather_global_leaves(tree, 0);
  }
  const bool written = writer.in_every_process(failure == nullptr);
  if (failure) std::rethrow_exception(failure);
  if (!written)
    throw io_error("nax::io: save_tree: " + path.string() +
                   " was not written: the process holding mesh device 0, which writes it, failed");
}

// Fills every leaf of tree (nax::Arrays, numbers and GlobalArrays) from the .npz file at path:
// each leaf takes the extents stored for it; the tree gives the structure, the element types
// and the axis names. A GlobalArray leaf is replaced by the stored array split over the same
// mesh as the leaf, in the same way (device_put_like): a checkpoint saved from one mesh loads
// onto a mesh of another shape, or into plain Arrays. Every process reads the file (on several
// hosts it must be on a filesystem they share). A file without the axes entry (written by
// numpy) is read with each leaf's axes in declared order.
template <class Tree>
void load_tree_into(const std::filesystem::path& path, Tree& tree) {
  const std::string file = path.string();
  const detail::file_bytes bytes(path);  // mapped, not copied (npy.hpp)
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
      if constexpr (detail::is_host_array<L>::value || nax::detail::is_global_array_v<L>) [&]<class... As>(nax::axes<As...>) {
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
        auto whole = detail::decode_npy<typename L::value_type, As...>(found->second, what, from_file);
        if constexpr (nax::detail::is_global_array_v<L>) {
          // Split over the leaf's mesh as the leaf is split, whatever mesh it was saved from.
          try {
            leaf = device_put_like(leaf, whole);
          } catch (const shape_error& e) {
            throw shape_error("nax::io: " + what + ": " + e.what());
          } catch (const argument_error& e) {
            throw argument_error("nax::io: " + what + ": " + e.what());
          }
        } else {
          leaf = std::move(whole);
        }
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
