// The tangents of forward mode (jvp.hpp), by storage: a differentiated argument's (the user's
// tangent, copied into an array of the argument's layout) and, for each evaluation inside f
// that depends on an argument, its output's (record.hpp evaluates the tangent beside the
// value). forward.hpp's leaf rule asks for a leaf's tangent here: a leaf of such a buffer reads
// its tangent array, any other leaf a zero that costs no memory. Autodiff layer, beside
// tape.hpp, which holds the env while jvp's f runs.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "tape.hpp"

namespace nax::detail::ad {

template <class X>
struct is_host_leaf : std::false_type {};
template <class T, class... As>
struct is_host_leaf<Leaf<T, As...>> : std::true_type {};

class tangent_env {
 public:
  // buffer's tangent is t (an array of the buffer's axes, same extents).
  template <class T, class... As>
  void add(const ArrayView<const T, As...>& buffer, std::shared_ptr<Array<T, As...>> t) {
    entry e;
    std::tie(e.first, e.last) = byte_range(buffer);
    e.data = buffer.data();
    e.extents.assign(buffer.extents().begin(), buffer.extents().end());
    e.strides.assign(buffer.strides().begin(), buffer.strides().end());
    e.type = &type_key_v<host_space, T, axes<As...>>;
    e.tangent = std::move(t);
    entries_.push_back(std::move(e));
  }
  std::size_t size() const { return entries_.size(); }

  template <leaf_node L>
  L leaf_tangent(const L& l) const {
    if constexpr (!is_host_leaf<L>::value) {
      throw argument_error("nax: jvp: f reads a device array; forward mode runs on the host backend only (yet)");
      return l;
    } else {
      using T = typename L::value_type;
      using A = typename L::axes_type;
      auto [first, last] = byte_range(l.view);
      // Newest first: an evaluation's output is the latest buffer at its address.
      for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
        const entry& e = *it;
        if (!first || !(e.first < last && first < e.last)) continue;
        const bool same = e.data == l.view.data() && std::equal(e.extents.begin(), e.extents.end(), l.view.extents().begin(), l.view.extents().end()) &&
                          std::equal(e.strides.begin(), e.strides.end(), l.view.strides().begin(), l.view.strides().end());
        if (!same || e.type != &type_key_v<host_space, T, A>)
          throw argument_error("nax: jvp: f reads an argument or an evaluated intermediate through a view of part of "
                               "it (an ArrayView made inside f); use nax::slice, transpose or rename on the array "
                               "instead");
        const auto& t = *static_cast<const array_for_t<T, A>*>(e.tangent.get());
        return L{{}, t.view(), e.tangent};
      }
      static const T zero{};
      return L{{}, decltype(l.view)(&zero, l.view.extents(), std::array<index_t, A::size>{}), {}};
    }
  }

 private:
  struct entry {
    const char* first = nullptr;
    const char* last = nullptr;
    const void* data = nullptr;
    std::vector<index_t> extents, strides;
    const void* type = nullptr;
    std::shared_ptr<void> tangent;
  };
  std::vector<entry> entries_;
};

}  // namespace nax::detail::ad
