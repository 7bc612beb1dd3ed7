// The record of a differentiation across evaluations (DESIGN 5b). While grad calls the user's
// function, every evaluation whose expression reads a tracked buffer (a differentiated
// argument, or the output of an earlier recorded evaluation) appends one entry: the
// expression, its evaluation context (the memo of its reductions and contractions, which its
// backward pass reads) and, type-erased, its static adjoint. The backward pass then runs the
// entries in reverse: one indirect call per evaluation, none per element. Buffers are tracked
// by their bytes; the Arrays that own them hand them to the tape when they are freed or
// overwritten (core/tape_hooks.hpp), so nothing the backward pass reads goes away and no
// address is reused while the tape could mistake it for a tracked one.
// Autodiff layer: includes variables.hpp; record.hpp adds the entries (it needs the rules).
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../core/tape_hooks.hpp"
#include "../expr/leaves.hpp"
#include "../core/view_slicing.hpp"
#include "at_position.hpp"
#include "cotangent.hpp"
#include "variables.hpp"

namespace nax::detail::ad {

// One address per (memory space, element type, axes): what a tracked buffer's cotangent holds.
template <class Space, class T, class Axes>
inline constexpr char type_key_v = 0;

// A buffer the tape tracks: a differentiated argument's storage, or a recorded output.
struct tracked_buffer {
  const char* first = nullptr;  // the bytes it spans
  const char* last = nullptr;
  const void* data = nullptr;  // the exact view leaves are matched against
  std::vector<index_t> extents, strides;
  const void* type = nullptr;  // type_key_v of the cotangent
  std::string (*describe)(const tracked_buffer&) = nullptr;
  std::shared_ptr<void> cotangent;  // an entry's: made at the first use; an argument's: its gradient
  std::ptrdiff_t entry = -1;        // the entry that wrote it; -1 for an argument
  bool linked = false;              // an argument whose gradient entries may add into
  // An argument's gradient, as memory: its own axes' strides, then the mapped axes of the
  // output it lacks (per-member gradients inside vmap/xmap), found by axis key.
  void* grad_data = nullptr;
  std::vector<index_t> grad_strides;
  std::vector<const void*> extra_keys;
  std::vector<index_t> extra_extents, extra_strides;
  // An entry's output whose cotangent is per member (the output varies over mapped axes the
  // entry's value does not): cotangent then holds host storage laid out as an argument's
  // gradient above (grad_data, grad_strides, the extra axes), each member's slice contiguous.
  bool members = false;
  std::size_t element_bytes = 0;
};

class tape;
class tangent_env;  // forward mode's tangents (tangents.hpp)

// One member's slice of a per-member cotangent (host memory, the output's extents).
struct cotangent_slot {
  const void* data;
  const index_t* extents;
  const index_t* strides;
};

template <class T, class Axes>
auto slot_view(cotangent_slot slot) {
  std::array<index_t, Axes::size> ext{}, str{};
  for (std::size_t k = 0; k != Axes::size; ++k) ext[k] = slot.extents[k], str[k] = slot.strides[k];
  return view_for_t<const T, Axes>(static_cast<const T*>(slot.data), ext, str);
}

// A recorded evaluation: its backward pass sends the cotangent of its output through the
// expression's static rules (record.hpp).
struct entry_base {
  std::size_t output = 0;  // in tape's buffers
  // keep: the entry stays for another backward pass (vjp's pullback may be called again).
  virtual void backward(tape& record, const std::shared_ptr<void>& cotangent, bool keep) = 0;
  // The same for one member's cotangent, while the tape's current member is set (run_backward).
  virtual void backward_member(tape& record, cotangent_slot cotangent, bool keep) = 0;
  virtual ~entry_base() = default;
};

template <class View>
std::string describe_view(const tracked_buffer& b) {
  std::array<index_t, std::remove_cvref_t<View>::rank> ext{};
  for (std::size_t k = 0; k != ext.size(); ++k) ext[k] = b.extents[k];
  std::string text = b.entry < 0 ? "a differentiated argument " : "the output of recorded evaluation #";
  if (b.entry >= 0) text += std::to_string(b.entry + 1) + " of f, ";
  text += describe_extents(typename std::remove_cvref_t<View>::axes_type{}, ext);
  return text;
}

// No tape is active while it lives (grad's backward pass, inside another grad's f).
struct tape_pause {
  tape_interface* previous = std::exchange(active_tape, nullptr);
  tape_pause() = default;
  tape_pause(const tape_pause&) = delete;
  ~tape_pause() { active_tape = previous; }
};

// The tape of one grad call. Made before f runs; active (core's active_tape) while f runs.
class tape final : public tape_interface {
 public:
  // recording false: evaluations that depend on a tracked buffer raise `refusal` (grad(grad(f)),
  // jvp), the tape only guards.
  explicit tape(bool recording, const char* refusal = nullptr)
      : recording_(recording), refusal_(refusal), enclosing_(active_tape) {}
  tape(const tape&) = delete;
  tape& operator=(const tape&) = delete;
  ~tape() {
    tape_pause pause;  // the entries' arrays are freed, not handed to another tape
    entries_.clear();
    buffers_.clear();
    for (auto [p, n] : adopted_) free_buffer(p, n);
  }

  // ---- core's hooks
  bool depends(const void* p, std::size_t bytes) const override {
    const char* q = static_cast<const char*>(p);
    return find_overlap(q, q + bytes) != nullptr;
  }
  bool holds(const void* p, std::size_t bytes) const override {
    const char* q = static_cast<const char*>(p);
    if (depends(p, bytes)) return true;
    auto it = pinned_.lower_bound(q);
    return it != pinned_.end() && *it < q + bytes;
  }
  void suspend(int delta) override { suspended_ += delta; }
  void adopt(void* p, std::size_t bytes) override {
    if (suspended_ > 0) free_buffer(p, bytes);  // a temporary of an evaluation that records nothing
    else adopted_.emplace_back(p, bytes);
  }
  [[noreturn]] void raw_access(const void* p, std::size_t bytes, bool write, const char* how) const override {
    const char* q = static_cast<const char*>(p);
    const tracked_buffer* b = find_overlap(q, q + bytes);
    const std::string what = b ? b->describe(*b) : std::string("an array");
    if (write && !b)
      throw argument_error("nax: " + std::string(name_) + ": f takes a writable pointer (" + how + ") into " + what +
                           ", which the recorded evaluations read; writing through it would change the gradient. "
                           "Read it through std::as_const, or build a new array");
    throw argument_error("nax: " + std::string(name_) + ": f reads " + what + " through " + how +
                         ", which depends on a differentiated argument: a raw value carries no derivative, so the "
                         "gradient through it would be silently 0. Keep it in nax expressions (a rank-0 array for "
                         "a number), or read nax::stop_gradient(x) to use its value as a constant");
  }

  // ---- the differentiation's setup
  bool has_entries() const { return !entries_.empty(); }
  // What the record keeps (tests count it: checkpoint keeps fewer entries and buffers).
  std::size_t entry_count() const { return entries_.size(); }
  std::size_t adopted_count() const { return adopted_.size(); }

  // A differentiated argument's storage (before f runs); its gradient is linked after.
  template <class View>
  std::size_t track_argument(const View& view) {
    if (enclosing_ && depends_view(*enclosing_, view))
      throw argument_error(
          "nax: grad: a grad inside the function of another grad differentiates with respect to a value that "
          "depends on the outer grad's argument; compose them directly (nax::grad(nax::grad(f))), or the inner "
          "gradient would be a constant to the outer one");
    return track(view, -1);
  }
  template <class Space, class T, class Axes, class Extra = axes<>, class Grad>
  void link_argument(std::size_t index, const std::shared_ptr<Grad>& gradient) {
    tracked_buffer& b = buffers_[index];
    b.type = &type_key_v<Space, T, Axes>;
    b.cotangent = gradient;
    b.linked = true;
    auto g = Space::writable(*gradient);  // axes: Axes, then Extra
    b.grad_data = g.data();
    b.grad_strides.assign(g.strides().begin(), g.strides().begin() + Axes::size);
    // (Linked again for each of a pullback's calls: the last call's axes go.)
    b.extra_keys.clear();
    b.extra_extents.clear();
    b.extra_strides.clear();
    [&]<class... Xs>(axes<Xs...>) {
      std::size_t k = Axes::size;
      ((b.extra_keys.push_back(axis_key<Xs>()), b.extra_extents.push_back(g.extents()[k]), b.extra_strides.push_back(g.strides()[k]), ++k),
       ...);
    }(Extra{});
  }
  // The mapped axes the output varies over (each member of them has its own gradient), with
  // their extents (out: the output, or what extent_of reads them from).
  template <class... Xs, class Out>
  void set_output_mapped(axes<Xs...>, const Out& out) {
    output_mapped_ = {axis_key<Xs>()...};
    output_mapped_extents_ = {extent_of<Xs>(out)...};
  }

  // An evaluation's output and what its expressions read (record.hpp, custom_vjp.hpp).
  template <class View, class... Es>
  void add_entry(std::unique_ptr<entry_base> entry, const View& out, const Es&... es) {
    auto pin = [&](const auto& leaf) {
      auto [first, last] = byte_range(leaf.view);
      if (first) pinned_.insert(first);
    };
    (visit_expression_leaves<true>(es, pin), ...);
    entry->output = track(out, static_cast<std::ptrdiff_t>(entries_.size()));
    entries_.push_back(std::move(entry));
  }

  // The transform whose tape this is, as its errors name it ("grad", "vjp", "jvp", "hessian").
  void set_name(const char* name) { name_ = name; }

  // Forward mode (jvp.hpp): while f runs, an evaluation that depends on an argument evaluates
  // its tangent beside its value into env (record.hpp), and its output is tracked like a
  // recorded one (the guards, and the tangents of later evaluations that read it).
  void set_forward(tangent_env* env) { forward_ = env; }
  tangent_env* forward() const { return forward_; }
  template <class View>
  void track_forward_output(const View& out) {
    track(out, forward_evaluations_++);
  }

  // Errors for what the tape cannot record, before anything is written.
  template <class View>
  void check_destination(const View& out) const {
    auto [first, last] = byte_range(out);
    if (first && holds(first, static_cast<std::size_t>(last - first)))
      throw argument_error("nax: " + std::string(name_) +
                           ": f writes into memory that the recorded evaluations read or that depends on a "
                           "differentiated argument (through a view); evaluate into a new nax::Array instead");
  }
  void check_recording() const {
    if (!recording_)
      throw argument_error(refusal_ ? refusal_
                                    : "nax: grad(grad(f)): f evaluates an intermediate that depends on the differentiated "
                                      "argument; second derivatives through evaluations are not supported yet: write f "
                                      "as one expression");
  }
  // An evaluation inside a nested grad must not read what an enclosing grad tracks (its
  // derivative would be lost to the outer one).
  template <class E>
  void check_enclosing(const E& e) const {
    if (!enclosing_) return;
    bool reads = false;
    auto look = [&](const auto& leaf) { reads = reads || depends_view(*enclosing_, leaf.view); };
    visit_expression_leaves<false>(e, look);
    if (reads)
      throw argument_error(
          "nax: grad: a grad inside the function of another grad reads a value that depends on the outer grad's "
          "argument (a capture); its derivative would be lost: compose the grads directly (nax::grad(nax::grad(f)))");
  }

  // Does e depend on a tracked buffer (stop_gradient cuts)? Integer and bool values never do.
  template <class E>
  bool depends_expression(const E& e) const {
    return depends_on_tape(e, *this);
  }
  template <leaf_node L>
  bool depends_leaf(const L& l) const {
    return depends_view(*this, l.view);
  }

  using suspension = tape_suspension;

  // f has returned: every buffer f let go of stays until the backward pass only if the record
  // or f's result reads it.
  template <class... Outs>
  void finish_forward(const Outs&... outs) {
    (check_enclosing(outs), ...);
    std::set<const char*> result;
    auto add = [&](const auto& leaf) {
      auto [first, last] = byte_range(leaf.view);
      if (first) result.insert(first);
    };
    (visit_expression_leaves<true>(outs, add), ...);
    std::erase_if(adopted_, [&](std::pair<void*, std::size_t> a) {
      const char* p = static_cast<const char*>(a.first);
      auto it = result.lower_bound(p);
      if (holds(p, a.second) || (it != result.end() && *it < p + a.second)) return false;
      free_buffer(a.first, a.second);
      return true;
    });
  }

  // A cotangent ct reaching leaf l: added into the tracked buffer l is (an entry's output, or
  // an argument's gradient). False when l is not a tracked buffer. Inside vmap/xmap ct may
  // vary over mapped axes that l lacks (Extra): where the output varies over them too, each
  // member keeps its own cotangent (an argument's per-member gradient, or an entry's output's
  // per-member cotangent: its backward pass then runs once per member); where it does not,
  // they are summed over the members here (psum), as fit does in the output's own pass. An
  // entry's backward pass keeps its output's axes on its cotangents (record.hpp), so this is
  // where that sum happens for them.
  template <class Space, leaf_node L, class Ct>
  bool accumulate(const L& l, const Ct& ct, typename Space::context& ctx) {
    using T = typename L::value_type;
    using A = typename L::axes_type;
    using Extra = difference_t<typename Ct::axes_type, A>;
    static_assert(difference_t<Extra, hidden_t<Ct>>::size == 0, "nax: internal: a cotangent reaches a leaf with visible axes it lacks");
    auto [first, last] = byte_range(l.view);
    if (!first) return false;
    bool found = false;
    for (auto [it, end] = by_first_.equal_range(first); it != end; ++it) {
      tracked_buffer& b = buffers_[it->second];
      if (b.data != l.view.data() || !same(b.extents, l.view.extents()) || !same(b.strides, l.view.strides()))
        continue;
      if (b.type && b.type != &type_key_v<Space, T, A>)
        throw std::logic_error("nax: grad: internal error: a tracked buffer is read with another element type");
      found = true;
      if constexpr (at_position_traits<Ct>::value && std::is_same_v<Space, host_space>) {
        // take<X>(argument, i)'s cotangent: added into the gradient's slice at X = i only.
        using P = at_position_traits<Ct>;
        using X = typename P::axis;
        if constexpr (contains_v<X, A>) {
          if (b.entry < 0 && P::holds(ct, b.extents[index_of_v<X, A>])) {
            const auto& u = P::unspread(ct);
            add_summing_unkept<Space, T, A>(b, u, ctx, difference_t<typename std::remove_cvref_t<decltype(u)>::axes_type, A>{},
                                            slice_at<X>{P::position(ct)});
            continue;
          }
        }
      }
      add_summing_unkept<Space, T, A>(b, ct, ctx, Extra{});
    }
    if (!found) refuse_partial_view(first, last);
    return found;
  }

  // The backward pass across the entries, last first; each entry's memo and expression are
  // let go as soon as it has run, unless keep (another backward pass will follow: vjp).
  void run_backward(bool keep = false) {
    tape_pause pause;
    for (std::size_t i = entries_.size(); i-- > 0;) {
      tracked_buffer& b = buffers_[entries_[i]->output];
      if (b.members) {
        run_members(*entries_[i], b, keep);
      } else if (b.cotangent) {
        std::shared_ptr<void> ct = std::move(b.cotangent);
        entries_[i]->backward(*this, ct, keep);
      }
      if (!keep) entries_[i].reset();
    }
  }

 private:
  // A leaf over part of a tracked buffer that is not one of its recorded views.
  void refuse_partial_view(const char* first, const char* last) const {
    if (const tracked_buffer* b = find_overlap(first, last))
      throw argument_error("nax: " + std::string(name_) + ": f reads " + b->describe(*b) +
                           " through a view of part of it (an ArrayView made inside f); use nax::slice, transpose or "
                           "rename on the array instead, which grad differentiates");
  }
  template <class B>
  static bool same(const std::vector<index_t>& v, const B& b) {
    if constexpr (std::tuple_size_v<B> == 0) return v.empty();  // (std::equal on rank 0's empty array: -Wnonnull)
    else return v.size() == b.size() && std::equal(v.begin(), v.end(), b.begin());
  }
  bool output_mapped(const void* key) const {
    return std::find(output_mapped_.begin(), output_mapped_.end(), key) != output_mapped_.end();
  }

  // ct added into b (axes A) once it is summed over the members of each mapped axis in Rest
  // that the output does not vary over (which ones is known at run time: each a branch).
  // Where in b a cotangent goes: all of it, or (an argument's gradient, on the host) the slice
  // at one index of axis X, the cotangent lacking X.
  struct whole_buffer {
    template <class View>
    const View& operator()(const View& v) const { return v; }
  };
  template <class X>
  struct slice_at {
    index_t index;
    template <class View>
    auto operator()(const View& v) const { return drop_axis<X>(v, index); }
  };

  template <class Space, class T, class A, class Ct, class... Rest, class Cut = whole_buffer>
  void add_summing_unkept(tracked_buffer& b, const Ct& ct, typename Space::context& ctx, axes<Rest...>, Cut cut = {}) {
    if constexpr (sizeof...(Rest) == 0) {
      add_into<Space, T, A>(b, ct, ctx, cut);
    } else {
      [&]<class X, class... More>(axes<X, More...>) {
        if (output_mapped(axis_key<X>())) add_summing_unkept<Space, T, A>(b, ct, ctx, axes<More...>{}, cut);
        else add_summing_unkept<Space, T, A>(b, psum_member<X>(ct), ctx, axes<More...>{}, cut);
      }(axes<Rest...>{});
    }
  }

  // ct (axes A, and mapped axes Kept that the output varies over) added into b's cotangent
  // (into its part that cut gives).
  template <class Space, class T, class A, class Ct, class Cut = whole_buffer>
  void add_into(tracked_buffer& b, const Ct& ct, typename Space::context& ctx, Cut cut = {}) {
    using Kept = difference_t<typename Ct::axes_type, A>;
    auto add = [&](const auto& g) {
      Space::assign(g, make_map<fn::plus>(Space::read(g, ctx), make_map<fn::cast_to<T>>(ct)), ctx);
    };
    if constexpr (!std::is_same_v<Cut, whole_buffer>) {
      if (b.entry >= 0) throw std::logic_error("nax: grad: internal error: a slice of a recorded evaluation's cotangent");
    } else if (b.entry >= 0 && !b.members) {
      // An entry's output: its cotangent has its axes, unless ct (or the member whose backward
      // pass sends it) is one member's of axes the output has and the entry's value lacks.
      if constexpr (Kept::size == 0) {
        if (!member_reaches<A>()) {
          using G = typename Space::template array<T, A>;
          if (!b.cotangent) {
            std::array<index_t, A::size> ext{};
            for (std::size_t k = 0; k != A::size; ++k) ext[k] = b.extents[k];
            b.type = &type_key_v<Space, T, A>;
            if constexpr (std::is_same_v<Space, host_space>) {
              // The first cotangent is written, not added to zeros (a memset and a read less).
              auto fresh = std::make_shared<G>(no_fill, ext);
              Space::assign(Space::writable(*fresh), make_map<fn::cast_to<T>>(ct), ctx);
              b.cotangent = std::move(fresh);
              return;
            }
            b.cotangent = std::make_shared<G>(ext);
          }
          add(Space::writable(*static_cast<G*>(b.cotangent.get())));
          return;
        }
      }
      expand_members<Space, T, A>(b, ctx);
    }
    if (b.entry < 0 && !b.linked)
      throw std::logic_error("nax: grad: internal error: an argument's gradient is not linked to the tape");
    // An argument's gradient (or an entry's per-member cotangent): its axes, then the output's
    // mapped axes it lacks (by key).
    using V = concat_t<A, Kept>;
    std::array<index_t, V::size> ext{}, str{};
    for (std::size_t k = 0; k != A::size; ++k) ext[k] = b.extents[k], str[k] = b.grad_strides[k];
    std::vector<bool> used(b.extra_keys.size(), false);
    [&]<class... Xs>(axes<Xs...>) {
      std::size_t k = A::size;
      [[maybe_unused]] auto one = [&]<class X>(std::type_identity<X>) {  // (unused when Kept is empty)
        auto at = std::find(b.extra_keys.begin(), b.extra_keys.end(), axis_key<X>());
        if (at == b.extra_keys.end())
          throw std::logic_error("nax: grad: internal error: a per-member cotangent along '" + std::string(axis_name<X>()) +
                                 "' reaches " + b.describe(b) + ", which has no per-member storage for it");
        const auto i = static_cast<std::size_t>(at - b.extra_keys.begin());
        used[i] = true;
        ext[k] = b.extra_extents[i];
        str[k] = b.extra_strides[i];
        ++k;
      };
      (one(std::type_identity<Xs>{}), ...);
    }(Kept{});
    // ct is the same for every member of the gradient's other mapped axes: added to each (to
    // the current member's only, while one member's backward pass runs).
    T* base = static_cast<T*>(b.grad_data);
    for_each_member(b, used, /*all=*/false, [&](index_t offset) { add(cut(view_for_t<T, V>(base + offset, ext, str))); });
  }

  // Calls at(offset) for every member of b's extra axes not marked in skip (offset: in
  // elements), or, unless all, only the current member's along the axes it is set for.
  template <class At>
  void for_each_member(const tracked_buffer& b, const std::vector<bool>& skip, bool all, At&& at) const {
    for (index_t offset : member_offsets(b, skip, all)) at(offset);
  }
  // The offsets for_each_member visits (a plain function: it is the same for every cotangent type).
  std::vector<index_t> member_offsets(const tracked_buffer& b, const std::vector<bool>& skip, bool all) const {
    std::vector<index_t> offsets;
    std::vector<std::size_t> axes_left;
    std::vector<index_t> lo, hi;
    for (std::size_t i = 0; i != b.extra_keys.size(); ++i) {
      if (!skip.empty() && skip[i]) continue;
      index_t from = 0, to = b.extra_extents[i];
      if (!all)
        for (auto [key, index] : member_)
          if (key == b.extra_keys[i]) from = index, to = index + 1;
      if (to <= from) return offsets;
      axes_left.push_back(i);
      lo.push_back(from);
      hi.push_back(to);
    }
    std::vector<index_t> member = lo;
    for (;;) {
      index_t offset = 0;
      for (std::size_t j = 0; j != axes_left.size(); ++j) offset += member[j] * b.extra_strides[axes_left[j]];
      offsets.push_back(offset);
      std::size_t j = 0;
      for (; j != axes_left.size(); ++j) {
        if (++member[j] < hi[j]) break;
        member[j] = lo[j];
      }
      if (j == axes_left.size()) return offsets;
    }
  }

  // Does the member whose backward pass runs (if any) have an axis that an entry's output
  // with axes A lacks? Then what reaches that output is this member's.
  template <class A>
  bool member_reaches() const {
    if (member_.empty()) return false;
    const std::array<const void*, A::size> own = []<class... As>(axes<As...>) {
      return std::array<const void*, A::size>{axis_key<As>()...};
    }(A{});
    for (auto [key, index] : member_)
      if (std::find(own.begin(), own.end(), key) == own.end()) return true;
    return false;
  }

  // An entry's output gets a per-member cotangent: host storage of its extents for every
  // member of the output's mapped axes it lacks, each member's slice contiguous; a cotangent
  // it had already (the same for every member) is added to each member's.
  template <class Space, class T, class A>
  void expand_members(tracked_buffer& b, typename Space::context& ctx) {
    if constexpr (!std::is_same_v<Space, host_space>) {
      throw std::logic_error("nax: grad: internal error: a per-member cotangent of a recorded evaluation off the host");
    } else {
      const std::array<const void*, A::size> own = []<class... As>(axes<As...>) {
        return std::array<const void*, A::size>{axis_key<As>()...};
      }(A{});
      index_t slice = 1;
      std::array<index_t, A::size> str{};
      for (std::size_t k = A::size; k-- > 0;) {
        str[k] = slice;
        slice = checked_product(slice, b.extents[k], b);
      }
      b.extra_keys.clear();
      b.extra_extents.clear();
      b.extra_strides.clear();
      index_t total = slice;
      for (std::size_t i = 0; i != output_mapped_.size(); ++i) {
        if (std::find(own.begin(), own.end(), output_mapped_[i]) != own.end()) continue;
        b.extra_keys.push_back(output_mapped_[i]);
        b.extra_extents.push_back(output_mapped_extents_[i]);
      }
      b.extra_strides.resize(b.extra_keys.size());
      for (std::size_t i = b.extra_keys.size(); i-- > 0;) {  // (the first extra axis outermost)
        b.extra_strides[i] = total;
        total = checked_product(total, b.extra_extents[i], b);
      }
      if (b.extra_keys.empty())
        throw std::logic_error("nax: grad: internal error: a per-member cotangent for an output that lacks no mapped axis");
      auto storage = std::make_shared<T[]>(static_cast<std::size_t>(total));  // zeros
      std::shared_ptr<void> plain = std::move(b.cotangent);
      b.grad_data = storage.get();
      b.grad_strides.assign(str.begin(), str.end());
      b.element_bytes = sizeof(T);
      b.cotangent = std::move(storage);
      b.members = true;
      b.type = &type_key_v<Space, T, A>;
      if (plain) {
        const auto& g = *static_cast<const typename Space::template array<T, A>*>(plain.get());
        for_each_member(b, {}, /*all=*/true, [&](index_t offset) {
          auto slot = view_for_t<T, A>(static_cast<T*>(b.grad_data) + offset, g.extents(), str);
          Space::assign(slot, make_map<fn::plus>(Space::read(slot, ctx), as_expr(g)), ctx);
        });
      }
    }
  }
  static index_t checked_product(index_t a, index_t b, const tracked_buffer& buffer) {
    index_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
      throw shape_error("nax: grad: the per-member cotangent of " + buffer.describe(buffer) +
                        " would have more elements than an index holds");
    return r;
  }

  // An entry whose output's cotangent is per member: its backward pass once per member, with
  // that member current (so what it sends is added to that member's cotangents and gradients).
  void run_members(entry_base& entry, tracked_buffer& b, bool keep) {
    std::shared_ptr<void> storage = std::move(b.cotangent);
    b.members = false;
    const char* base = static_cast<const char*>(b.grad_data);
    std::vector<index_t> member(b.extra_keys.size(), 0);
    index_t count = 1;
    for (index_t e : b.extra_extents) count *= e;
    for (index_t m = 0; m != count; ++m) {
      index_t offset = 0;
      member_.clear();
      for (std::size_t j = 0; j != member.size(); ++j) {
        offset += member[j] * b.extra_strides[j];
        member_.emplace_back(b.extra_keys[j], member[j]);
      }
      entry.backward_member(*this, {base + offset * static_cast<index_t>(b.element_bytes), b.extents.data(), b.grad_strides.data()},
                            keep || m + 1 != count);
      for (std::size_t j = 0; j != member.size(); ++j) {
        if (++member[j] < b.extra_extents[j]) break;
        member[j] = 0;
      }
    }
    member_.clear();
  }

  template <class View>
  static bool depends_view(const tape_interface& t, const View& view) {
    auto [first, last] = byte_range(view);
    return first && t.depends(first, static_cast<std::size_t>(last - first));
  }
  // The tracked buffer overlapping [p, q), if any (tracked buffers never overlap each other
  // unless they are the same bytes: one array passed twice).
  const tracked_buffer* find_overlap(const char* p, const char* q) const {
    if (by_first_.empty() || p == q) return nullptr;
    auto it = by_first_.lower_bound(q);  // the first buffer starting at or after q
    if (it == by_first_.begin()) return nullptr;
    const tracked_buffer& b = buffers_[std::prev(it)->second];
    return b.last > p ? &b : nullptr;
  }
  template <class View>
  std::size_t track(const View& view, std::ptrdiff_t entry) {
    tracked_buffer b;
    std::tie(b.first, b.last) = byte_range(view);
    b.data = view.data();
    b.extents.assign(view.extents().begin(), view.extents().end());
    b.strides.assign(view.strides().begin(), view.strides().end());
    b.describe = &describe_view<View>;
    b.entry = entry;
    buffers_.push_back(std::move(b));
    if (buffers_.back().first) by_first_.emplace(buffers_.back().first, buffers_.size() - 1);
    return buffers_.size() - 1;
  }

  bool recording_;
  const char* refusal_;
  const char* name_ = "grad";
  tangent_env* forward_ = nullptr;
  std::ptrdiff_t forward_evaluations_ = 0;
  tape_interface* enclosing_;
  int suspended_ = 0;
  std::vector<tracked_buffer> buffers_;
  std::multimap<const char*, std::size_t> by_first_;  // tracked buffers by their first byte
  std::set<const char*> pinned_;                      // first bytes of what the entries read
  std::vector<std::unique_ptr<entry_base>> entries_;
  std::vector<std::pair<void*, std::size_t>> adopted_;
  std::vector<const void*> output_mapped_;  // axis keys
  std::vector<index_t> output_mapped_extents_;
  std::vector<std::pair<const void*, index_t>> member_;  // the member whose backward pass runs (run_members)
};

// Makes t the thread's active tape while it lives.
struct tape_scope {
  tape_interface* previous;
  explicit tape_scope(tape& t) : previous(std::exchange(active_tape, &t)) {}
  tape_scope(const tape_scope&) = delete;
  ~tape_scope() { active_tape = previous; }
};

// What the backward pass carries: the evaluation context, the variables, and the tape when
// f recorded evaluations. Sink: what to do, besides accumulating, with each cotangent that
// reaches a use of a variable; grad(grad(f)) differentiates it once more (grad.hpp).
struct no_sink {};
template <class Space, class Hout, class Vars, class Sink = no_sink>
struct state {
  using space = Space;
  using output_hidden = Hout;
  typename Space::context ctx;
  Vars vars;
  Sink sink{};
  tape* record = nullptr;
};

}  // namespace nax::detail::ad
