// Communicators between emulated devices of one process (threads sharing memory): one
// host_group per group of devices, created once with the mesh, serves all its members; each
// member holds a host_communicator handle. Implements communicator.hpp's interface.
//
// Every collective: each member publishes its buffers in its slot, meets the others at a
// barrier, checks that all slots agree (same call, count, dtype, op, permutation: every member
// reads the same slots, so all reach the same verdict), does its share of the work reading the
// other members' buffers directly, and meets them again before returning (so that no buffer is
// released while another member still reads it). all_reduce splits the range into one slice per
// member; member r reduces slice r over all members (in member order, so every member gets the
// same bits) and writes the result into every member's buffer: two barriers, no scratch buffer.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "host_barrier.hpp"
#include "reduce_kernels.hpp"

namespace nax::detail {

class host_group;

class host_communicator final : public communicator {
 public:
  host_communicator(host_group* group, int rank) : group_(group), rank_(rank) {}

  int size() const override;
  int rank() const override { return rank_; }
  void all_reduce(void* data, index_t count, dtype type, reduce_op op) override;
  void all_gather(const void* send, void* recv, index_t count, dtype type) override;
  void reduce_scatter(const void* send, void* recv, index_t count, dtype type,
                      reduce_op op) override;
  void all_to_all(const void* send, void* recv, index_t count, dtype type) override;
  void permute(const void* send, void* recv, index_t count, dtype type,
               const permutation& pairs) override;
  void barrier() override;
  std::string describe() const override;
  NAX_COMMUNICATOR_USING_WRAPPERS;

 private:
  host_group* group_;
  int rank_;
};

class host_group {
 public:
  // `abort` (shared by the groups of one mesh) may be null for a group used on its own.
  // device_threads: how many device threads share the machine (the mesh's device count), which
  // decides whether waiting members spin before they sleep; -1: the group's size.
  explicit host_group(int members, std::string label = "host group",
                      host_abort_state* abort = nullptr, int device_threads = -1)
      : label_(std::move(label)),
        slots_(static_cast<std::size_t>(require_members(members, label_))),
        barrier_(members, abort, label_,
                 host_barrier::default_spin(device_threads >= 0 ? device_threads : members)) {
    handles_.reserve(static_cast<std::size_t>(members));
    for (int rank = 0; rank < members; ++rank)
      handles_.push_back(std::make_unique<host_communicator>(this, rank));
  }
  host_group(const host_group&) = delete;
  host_group& operator=(const host_group&) = delete;

  int size() const { return static_cast<int>(slots_.size()); }
  host_communicator& member(int rank) { return *handles_.at(static_cast<std::size_t>(rank)); }
  const std::string& label() const { return label_; }
  // Mesh::run: a member's device function returned (see host_barrier::depart).
  void depart() { barrier_.depart(); }
  // At the end of a Mesh::run, when no member is inside a collective.
  void reset() { barrier_.reset(); }

 private:
  friend class host_communicator;

  struct alignas(64) slot {
    collective call = collective::barrier;
    const void* send = nullptr;
    void* recv = nullptr;
    index_t count = 0;
    dtype type = dtype::f32;
    reduce_op op = reduce_op::sum;
    const permutation* pairs = nullptr;
  };

  static int require_members(int members, std::string const& label) {
    if (members < 1)
      throw argument_error(label + ": a group needs at least one member, got " +
                           std::to_string(members));
    return members;
  }

  // Elements per chunk of a reduction, staged in a stack buffer that stays in L1.
  static constexpr std::size_t chunk_bytes = 16 * 1024;

  template <class Body>
  void collective_call(int rank, slot const& mine, Body&& body) {
    std::string_view name = collective_name(mine.call);
    slots_[static_cast<std::size_t>(rank)] = mine;
    barrier_.arrive_and_wait(name);
    check_or_throw(name);
    body();
    barrier_.arrive_and_wait(name);
  }

  // Reads every slot; all members compute the same verdict. On a problem, all members meet once
  // more (so that nobody rewrites its slot while another still reads it) and throw.
  void check_or_throw(std::string_view name) {
    slot const& first = slots_[0];
    std::string problem;
    bool agreement = true;
    for (std::size_t j = 1; j < slots_.size() && problem.empty(); ++j) {
      slot const& other = slots_[j];
      auto differ = [&](std::string_view what, std::string a, std::string b) {
        problem = describe_group() + ": members disagree on " + std::string(what) + ": member 0 " +
                  a + ", member " + std::to_string(j) + " " + b;
      };
      if (other.call != first.call) {
        differ("the collective", "calls " + std::string(collective_name(first.call)),
               "calls " + std::string(collective_name(other.call)));
      } else if (other.count != first.count) {
        differ("the count", "passes " + std::to_string(first.count),
               "passes " + std::to_string(other.count));
      } else if (first.call != collective::barrier && other.type != first.type) {
        differ("the dtype", "passes " + std::string(dtype_name(first.type)),
               "passes " + std::string(dtype_name(other.type)));
      } else if ((first.call == collective::all_reduce || first.call == collective::reduce_scatter) &&
                 other.op != first.op) {
        differ("the reduction", "passes " + std::string(reduce_op_name(first.op)),
               "passes " + std::string(reduce_op_name(other.op)));
      } else if (first.call == collective::permute && *other.pairs != *first.pairs) {
        differ("the permutation", "passes " + permutation_text(*first.pairs),
               "passes " + permutation_text(*other.pairs));
      }
    }
    if (!problem.empty()) {
      agreement = false;
    } else if (first.count < 0) {
      problem = describe_group() + ": negative count " + std::to_string(first.count);
    } else if (first.call != collective::barrier && !is_valid(first.type)) {
      problem = describe_group() + ": invalid dtype value " +
                std::to_string(static_cast<int>(first.type));
    } else if ((first.call == collective::all_reduce || first.call == collective::reduce_scatter) &&
               !is_valid(first.op)) {
      problem = describe_group() + ": invalid reduce_op value " +
                std::to_string(static_cast<int>(first.op));
    } else if (first.call == collective::permute) {
      try {
        validate_permutation(*first.pairs, size(), std::string(name) + " on " + describe_group());
      } catch (argument_error const& error) {
        problem = error.what();
      }
    }
    if (problem.empty()) return;
    barrier_.arrive_and_wait(name);
    if (!agreement) throw device_error(std::string(name) + ": " + problem);
    if (first.call == collective::permute) throw argument_error(problem);
    throw argument_error(std::string(name) + ": " + problem);
  }

  std::string describe_group() const {
    return label_ + " (" + std::to_string(size()) + " members)";
  }
  static std::string permutation_text(permutation const& pairs) {
    std::string text = "[";
    for (std::size_t i = 0; i < pairs.size(); ++i) text += (i ? ", " : "") + pair_text(pairs[i]);
    return text + "]";
  }

  // [begin, end) of member `rank`'s slice of count elements, cut at cache-line multiples so
  // that no two members write the same line.
  std::pair<index_t, index_t> slice_of(int rank, index_t count, std::size_t element_size) const {
    index_t granule = std::max<index_t>(1, 64 / static_cast<index_t>(element_size));
    index_t units = (count + granule - 1) / granule;
    index_t n = size();
    index_t begin = std::min(count, units * rank / n * granule);
    index_t end = std::min(count, units * (rank + 1) / n * granule);
    return {begin, end};
  }

  // out[0, count) = op over members j (in order) of inputs[j][0, count); outputs get the result.
  // (Non-temporal stores for the outputs of large buffers were measured: 25% more CPU time on
  // the AMD EPYC development machine, so plain stores.)
  static void reduce_chunks(const std::vector<const std::byte*>& inputs,
                            const std::vector<std::byte*>& outputs, index_t count,
                            std::size_t element_size, comm_kernels::combine_fn combine) {
    alignas(64) std::byte staging[chunk_bytes];
    index_t const chunk = static_cast<index_t>(chunk_bytes / element_size);
    for (index_t offset = 0; offset < count; offset += chunk) {
      index_t length = std::min(chunk, count - offset);
      std::size_t byte_offset = static_cast<std::size_t>(offset) * element_size;
      std::size_t bytes = static_cast<std::size_t>(length) * element_size;
      std::memcpy(staging, inputs[0] + byte_offset, bytes);
      for (std::size_t j = 1; j < inputs.size(); ++j) combine(staging, inputs[j] + byte_offset, length);
      for (std::byte* output : outputs) std::memcpy(output + byte_offset, staging, bytes);
    }
  }

  // A block copy of a collective: memmove, since the source may be the destination's own block.
  static void copy_bytes(void* destination, const void* source, std::size_t bytes) {
    if (destination != source && bytes != 0) std::memmove(destination, source, bytes);
  }

  std::string label_;
  std::vector<slot> slots_;
  host_barrier barrier_;
  std::vector<std::unique_ptr<host_communicator>> handles_;
};

inline int host_communicator::size() const { return group_->size(); }

inline std::string host_communicator::describe() const {
  return group_->describe_group() + ", member " + std::to_string(rank_);
}

inline void host_communicator::all_reduce(void* data, index_t count, dtype type, reduce_op op) {
  host_group::slot mine{collective::all_reduce, data, data, count, type, op, nullptr};
  group_->collective_call(rank_, mine, [&] {
    std::size_t element_size = dtype_size(type);
    auto [begin, end] = group_->slice_of(rank_, count, element_size);
    if (begin >= end) return;
    std::size_t n = static_cast<std::size_t>(size());
    std::vector<const std::byte*> inputs(n);
    std::vector<std::byte*> outputs(n);
    std::size_t offset = static_cast<std::size_t>(begin) * element_size;
    for (std::size_t j = 0; j < n; ++j) {
      outputs[j] = static_cast<std::byte*>(group_->slots_[j].recv) + offset;
      inputs[j] = outputs[j];
    }
    host_group::reduce_chunks(inputs, outputs, end - begin, element_size,
                              comm_kernels::combine_for(type, op));
  });
}

inline void host_communicator::all_gather(const void* send, void* recv, index_t count,
                                          dtype type) {
  host_group::slot mine{collective::all_gather, send, recv, count, type, reduce_op::sum, nullptr};
  group_->collective_call(rank_, mine, [&] {
    std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(type);
    for (int j = 0; j < size(); ++j)
      host_group::copy_bytes(static_cast<std::byte*>(recv) + static_cast<std::size_t>(j) * bytes,
                             group_->slots_[static_cast<std::size_t>(j)].send, bytes);
  });
}

inline void host_communicator::reduce_scatter(const void* send, void* recv, index_t count,
                                              dtype type, reduce_op op) {
  host_group::slot mine{collective::reduce_scatter, send, recv, count, type, op, nullptr};
  group_->collective_call(rank_, mine, [&] {
    std::size_t element_size = dtype_size(type);
    std::size_t block_offset = static_cast<std::size_t>(rank_) * static_cast<std::size_t>(count) *
                               element_size;
    std::size_t n = static_cast<std::size_t>(size());
    std::vector<const std::byte*> inputs(n);
    for (std::size_t j = 0; j < n; ++j)
      inputs[j] = static_cast<const std::byte*>(group_->slots_[j].send) + block_offset;
    std::vector<std::byte*> outputs{static_cast<std::byte*>(recv)};
    host_group::reduce_chunks(inputs, outputs, count, element_size,
                              comm_kernels::combine_for(type, op));
  });
}

inline void host_communicator::all_to_all(const void* send, void* recv, index_t count,
                                          dtype type) {
  host_group::slot mine{collective::all_to_all, send, recv, count, type, reduce_op::sum, nullptr};
  group_->collective_call(rank_, mine, [&] {
    std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(type);
    for (int j = 0; j < size(); ++j)
      host_group::copy_bytes(
          static_cast<std::byte*>(recv) + static_cast<std::size_t>(j) * bytes,
          static_cast<const std::byte*>(group_->slots_[static_cast<std::size_t>(j)].send) +
              static_cast<std::size_t>(rank_) * bytes,
          bytes);
  });
}

inline void host_communicator::permute(const void* send, void* recv, index_t count, dtype type,
                                       const permutation& pairs) {
  host_group::slot mine{collective::permute, send, recv, count, type, reduce_op::sum, &pairs};
  group_->collective_call(rank_, mine, [&] {
    std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(type);
    int source = permutation_source(pairs, rank_);
    if (source < 0) {
      if (bytes != 0) std::memset(recv, 0, bytes);  // all-zero bits are 0 for every dtype
    } else {
      host_group::copy_bytes(recv, group_->slots_[static_cast<std::size_t>(source)].send, bytes);
    }
  });
}

inline void host_communicator::barrier() {
  host_group::slot mine{collective::barrier, nullptr, nullptr, 0, dtype::u8, reduce_op::sum, nullptr};
  group_->collective_call(rank_, mine, [] {});
}

}  // namespace nax::detail
