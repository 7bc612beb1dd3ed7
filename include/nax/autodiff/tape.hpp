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
};

class tape;
class tangent_env;  // forward mode's tangents (tangents.hpp)

// A recorded evaluation: its backward pass sends the cotangent of its output through the
// expression's static rules (record.hpp).
struct entry_base {
  std::size_t output = 0;  // in tape's buffers
  // keep: the entry stays for another backward pass (vjp's pullback may be called again).
  virtual void backward(tape& record, const std::shared_ptr<void>& cotangent, bool keep) = 0;
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
    [&]<class... Xs>(axes<Xs...>) {
      std::size_t k = Axes::size;
      ((b.extra_keys.push_back(axis_key<Xs>()), b.extra_extents.push_back(g.extents()[k]), b.extra_strides.push_back(g.strides()[k]), ++k),
       ...);
    }(Extra{});
  }
  // The mapped axes the output varies over (each member of them has its own gradient).
  template <class... Xs>
  void set_output_mapped(axes<Xs...>) {
    output_mapped_ = {axis_key<Xs>()...};
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
  // member keeps its own cotangent (an argument's per-member gradient); where it does not,
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
      if constexpr (Extra::size == 0) {
        add_into<Space, T, A>(b, ct, ctx);
      } else {
        std::size_t kept = 0;
        [&]<class... Xs>(axes<Xs...>) { kept = (std::size_t{output_mapped(axis_key<Xs>())} + ...); }(Extra{});
        if (kept == 0) {
          add_into<Space, T, A>(b, psum_over(ct, Extra{}), ctx);
        } else if (kept == Extra::size && b.entry < 0) {
          add_into<Space, T, A>(b, ct, ctx);
        } else {
          std::string names;
          [&]<class... Xs>(axes<Xs...>) {
            ((names += output_mapped(axis_key<Xs>()) ? (names.empty() ? "'" : ", '") + std::string(axis_name<Xs>()) + "'"
                                                     : std::string()),
             ...);
          }(Extra{});
          throw argument_error("nax: grad: the output varies over the mapped axis " + names + " and f evaluated " +
                               b.describe(b) +
                               ", which does not vary over it; the per-member gradients through that evaluation are "
                               "not supported yet. Leave that value unevaluated (part of a lazy expression), or "
                               "reduce the loss over the members inside f (pmean)");
        }
      }
    }
    if (!found && find_overlap(first, last))
      throw argument_error("nax: " + std::string(name_) + ": f reads " + find_overlap(first, last)->describe(*find_overlap(first, last)) +
                           " through a view of part of it (an ArrayView made inside f); use nax::slice, transpose or "
                           "rename on the array instead, which grad differentiates");
    return found;
  }

  // The backward pass across the entries, last first; each entry's memo and expression are
  // let go as soon as it has run, unless keep (another backward pass will follow: vjp).
  void run_backward(bool keep = false) {
    tape_pause pause;
    for (std::size_t i = entries_.size(); i-- > 0;) {
      tracked_buffer& b = buffers_[entries_[i]->output];
      if (b.cotangent) {
        std::shared_ptr<void> ct = std::move(b.cotangent);
        entries_[i]->backward(*this, ct, keep);
      }
      if (!keep) entries_[i].reset();
    }
  }

 private:
  template <class B>
  static bool same(const std::vector<index_t>& v, const B& b) {
    if constexpr (std::tuple_size_v<B> == 0) return v.empty();  // (std::equal on rank 0's empty array: -Wnonnull)
    else return v.size() == b.size() && std::equal(v.begin(), v.end(), b.begin());
  }
  bool output_mapped(const void* key) const {
    return std::find(output_mapped_.begin(), output_mapped_.end(), key) != output_mapped_.end();
  }

  // ct (axes A, and mapped axes Kept that the output varies over) added into b's cotangent.
  template <class Space, class T, class A, class Ct>
  void add_into(tracked_buffer& b, const Ct& ct, typename Space::context& ctx) {
    using Kept = difference_t<typename Ct::axes_type, A>;
    auto add = [&](const auto& g) {
      Space::assign(g, make_map<fn::plus>(Space::read(g, ctx), make_map<fn::cast_to<T>>(ct)), ctx);
    };
    if (b.entry >= 0) {  // an entry's output: its cotangent has its axes (accumulate sums the rest)
      if constexpr (Kept::size != 0) {
        throw std::logic_error("nax: grad: internal error: a per-member cotangent reaches an evaluation's output");
      } else {
        using G = typename Space::template array<T, A>;
        if (!b.cotangent) {
          std::array<index_t, A::size> ext{};
          for (std::size_t k = 0; k != A::size; ++k) ext[k] = b.extents[k];
          b.cotangent = std::make_shared<G>(ext);
          b.type = &type_key_v<Space, T, A>;
        }
        add(Space::writable(*static_cast<G*>(b.cotangent.get())));
        return;
      }
    }
    if (!b.linked) throw std::logic_error("nax: grad: internal error: an argument's gradient is not linked to the tape");
    // An argument's gradient: its axes, then the output's mapped axes it lacks (by key).
    using V = concat_t<A, Kept>;
    std::array<index_t, V::size> ext{}, str{};
    for (std::size_t k = 0; k != A::size; ++k) ext[k] = b.extents[k], str[k] = b.grad_strides[k];
    std::vector<bool> used(b.extra_keys.size(), false);
    [&]<class... Xs>(axes<Xs...>) {
      std::size_t k = A::size;
      [[maybe_unused]] auto one = [&]<class X>(std::type_identity<X>) {  // (unused when Kept is empty)
        auto at = std::find(b.extra_keys.begin(), b.extra_keys.end(), axis_key<X>());
        if (at == b.extra_keys.end())
          throw argument_error("nax: grad: the output varies over the mapped axis '" + std::string(axis_name<X>()) +
                               "', so " + b.describe(b) +
                               " would need a gradient per member, which a differentiated std::vector does not "
                               "have yet; reduce the loss over the members inside f (pmean)");
        const auto i = static_cast<std::size_t>(at - b.extra_keys.begin());
        used[i] = true;
        ext[k] = b.extra_extents[i];
        str[k] = b.extra_strides[i];
        ++k;
      };
      (one(std::type_identity<Xs>{}), ...);
    }(Kept{});
    // ct is the same for every member of the gradient's other mapped axes: added to each.
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i != used.size(); ++i)
      if (!used[i]) {
        if (b.extra_extents[i] == 0) return;
        rest.push_back(i);
      }
    std::vector<index_t> member(rest.size(), 0);
    T* base = static_cast<T*>(b.grad_data);
    for (;;) {
      index_t offset = 0;
      for (std::size_t j = 0; j != rest.size(); ++j) offset += member[j] * b.extra_strides[rest[j]];
      add(view_for_t<T, V>(base + offset, ext, str));
      std::size_t j = 0;
      for (; j != rest.size(); ++j) {
        if (++member[j] < b.extra_extents[rest[j]]) break;
        member[j] = 0;
      }
      if (j == rest.size()) return;
    }
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
