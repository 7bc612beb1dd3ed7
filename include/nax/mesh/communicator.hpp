// The communicator: one member's handle on a group of devices, the transport under nax's
// collectives (psum, all_gather, ppermute, ... in transform/). Sits under mesh.hpp; implemented
// by host_communicator.hpp (threads of one process, shared memory) and mpi_communicator.hpp.
//
// Interface (namespace nax::detail):
//
//   enum class dtype { f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean };  // dtype.hpp
//   template <class T> constexpr dtype dtype_of;        // dtype_of<float> == dtype::f32
//   enum class reduce_op { sum, prod, max, min };
//   using permutation = std::vector<std::pair<int, int>>;   // (source, destination) members
//
//   class communicator {
//    public:
//     virtual int size() const;   // members in the group
//     virtual int rank() const;   // this member's index (its coordinate along the mesh axis, or
//                                 // the row-major index over the axes of a multi-axis group)
//     virtual void all_reduce(void* data, index_t count, dtype, reduce_op);            // in place
//     virtual void all_gather(const void* send, void* recv, index_t count, dtype);
//         // recv holds size()*count; member r's block lands at r*count
//     virtual void reduce_scatter(const void* send, void* recv, index_t count, dtype, reduce_op);
//         // send holds size()*count; recv (count) = the reduction of block rank() over members
//     virtual void all_to_all(const void* send, void* recv, index_t count, dtype);
//         // send and recv hold size()*count; block j of send goes to member j, recv block j
//         // came from member j
//     virtual void permute(const void* send, void* recv, index_t count, dtype, const permutation&);
//         // jax.lax.ppermute: recv = send of the member s with (s, rank()) in the permutation,
//         // zeros when no pair has destination rank()
//     virtual void barrier();
//     virtual std::string describe() const;   // "host group over {data} (4 members), member 2"
//     virtual bool reads_device_memory() const;  // buffers may be GPU memory (NCCL); false:
//                                                // the CUDA backend stages them through the host
//     + typed wrappers: all_reduce(T* data, index_t count, reduce_op = sum), all_reduce(range, op),
//       all_gather(const T*, T*, count) / (send_range, recv_range), reduce_scatter(..., op),
//       all_to_all(...), permute(..., permutation): dtype from T, sizes checked.
//   };
//
// Every member of a group calls the same collective, in the same order, with the same count,
// dtype, op and permutation (all are counts of elements, per member block). Each call is a
// synchronisation point: it returns when this member's output is complete and the member's
// input buffers are no longer read by anyone.
// Errors:
// - nax::argument_error: a negative count, an invalid dtype/op, an invalid permutation
//   (a member outside [0, size()), two pairs with the same source or the same destination; the
//   message names the pair), or a typed wrapper whose buffer sizes do not fit.
// - nax::device_error: the members disagree (different collectives, counts, dtypes, ops or
//   permutations, when detectable: always on host groups and MPI), an MPI call failed (the text
//   names the call and MPI_Error_string), or another device of the same Mesh::run failed while
//   this member waited ("another device failed: ...").
// All members of a group raise the same error for the same call, so that none is left waiting.
// Aliasing: all_reduce is in place; all_gather's send may be recv's own block rank() and
// reduce_scatter's recv may be send's own block rank(); otherwise inputs and outputs must not
// overlap.
#pragma once
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/config.hpp"
#include "../core/errors.hpp"
#include "dtype.hpp"

namespace nax::detail {

using permutation = std::vector<std::pair<int, int>>;

enum class collective { all_reduce, all_gather, reduce_scatter, all_to_all, permute, barrier };

constexpr std::string_view collective_name(collective call) {
  switch (call) {
    case collective::all_reduce: return "all_reduce";
    case collective::all_gather: return "all_gather";
    case collective::reduce_scatter: return "reduce_scatter";
    case collective::all_to_all: return "all_to_all";
    case collective::permute: return "permute";
    case collective::barrier: return "barrier";
  }
  return "unknown collective";
}


// Throws argument_error naming the offending pair(s) unless every member appears at most once as
// a source and at most once as a destination, and all lie in [0, size).
inline void validate_permutation(const permutation& pairs, int size, std::string_view where) {
  std::vector<int> source_pair(static_cast<std::size_t>(size), -1);
  std::vector<int> destination_pair(static_cast<std::size_t>(size), -1);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    auto const& pair = pairs[i];
    for (int member : {pair.first, pair.second}) {
      if (member < 0 || member >= size)
        throw argument_error(std::string(where) + ": permutation pair " + pair_text(pair) +
                             " names member " + std::to_string(member) + ", outside [0, " +
                             std::to_string(size) + ") of a group of " + std::to_string(size));
    }
    int& seen_source = source_pair[static_cast<std::size_t>(pair.first)];
    if (seen_source >= 0)
      throw argument_error(std::string(where) + ": permutation pairs " +
                           pair_text(pairs[static_cast<std::size_t>(seen_source)]) + " and " +
                           pair_text(pair) + " have the same source " + std::to_string(pair.first));
    seen_source = static_cast<int>(i);
    int& seen_destination = destination_pair[static_cast<std::size_t>(pair.second)];
    if (seen_destination >= 0)
      throw argument_error(std::string(where) + ": permutation pairs " +
                           pair_text(pairs[static_cast<std::size_t>(seen_destination)]) + " and " +
                           pair_text(pair) + " have the same destination " +
                           std::to_string(pair.second));
    seen_destination = static_cast<int>(i);
  }
}

// The source member whose data `member` receives, or -1 (it receives zeros).
inline int permutation_source(const permutation& pairs, int member) {
  for (auto const& pair : pairs)
    if (pair.second == member) return pair.first;
  return -1;
}
// The destination member of `member`'s data, or -1 (nobody receives it).
inline int permutation_destination(const permutation& pairs, int member) {
  for (auto const& pair : pairs)
    if (pair.first == member) return pair.second;
  return -1;
}

template <class R>
concept contiguous_buffer = std::ranges::contiguous_range<R> && std::ranges::sized_range<R>;

class communicator {
 public:
  virtual ~communicator() = default;

  virtual int size() const = 0;
  virtual int rank() const = 0;
  virtual void all_reduce(void* data, index_t count, dtype type, reduce_op op) = 0;
  virtual void all_gather(const void* send, void* recv, index_t count, dtype type) = 0;
  virtual void reduce_scatter(const void* send, void* recv, index_t count, dtype type,
                              reduce_op op) = 0;
  virtual void all_to_all(const void* send, void* recv, index_t count, dtype type) = 0;
  virtual void permute(const void* send, void* recv, index_t count, dtype type,
                       const permutation& pairs) = 0;
  virtual void barrier() = 0;
  virtual std::string describe() const = 0;
  // Whether buffers may be device memory (NCCL's do); otherwise device data is staged through
  // host memory by the caller (backend/cuda/host_staging.hpp).
  virtual bool reads_device_memory() const { return false; }

  // ----- typed wrappers: the dtype comes from T -----
  template <class T>
    requires(!std::is_const_v<T>)
  void all_reduce(T* data, index_t count, reduce_op op = reduce_op::sum) {
    all_reduce(static_cast<void*>(data), count, dtype_of<T>, op);
  }
  template <class T>
  void all_gather(const T* send, T* recv, index_t count) {
    all_gather(static_cast<const void*>(send), static_cast<void*>(recv), count, dtype_of<T>);
  }
  template <class T>
  void reduce_scatter(const T* send, T* recv, index_t count, reduce_op op = reduce_op::sum) {
    reduce_scatter(static_cast<const void*>(send), static_cast<void*>(recv), count, dtype_of<T>,
                   op);
  }
  template <class T>
  void all_to_all(const T* send, T* recv, index_t count) {
    all_to_all(static_cast<const void*>(send), static_cast<void*>(recv), count, dtype_of<T>);
  }
  template <class T>
  void permute(const T* send, T* recv, index_t count, const permutation& pairs) {
    permute(static_cast<const void*>(send), static_cast<void*>(recv), count, dtype_of<T>, pairs);
  }

  // ----- range wrappers (std::vector, std::span, std::array, ...): sizes checked -----
  template <contiguous_buffer R>
  void all_reduce(R&& data, reduce_op op = reduce_op::sum) {
    all_reduce(std::ranges::data(data), buffer_size(data), op);
  }
  // recv.size() == size() * send.size()
  template <contiguous_buffer S, contiguous_buffer R>
  void all_gather(S const& send, R&& recv) {
    index_t count = buffer_size(send);
    require_size("all_gather", "recv", buffer_size(recv), count * size(), "size() * send.size()");
    all_gather(std::ranges::data(send), std::ranges::data(recv), count);
  }
  // send.size() == size() * recv.size()
  template <contiguous_buffer S, contiguous_buffer R>
  void reduce_scatter(S const& send, R&& recv, reduce_op op = reduce_op::sum) {
    index_t count = buffer_size(recv);
    require_size("reduce_scatter", "send", buffer_size(send), count * size(),
                 "size() * recv.size()");
    reduce_scatter(std::ranges::data(send), std::ranges::data(recv), count, op);
  }
  // send.size() == recv.size(), a multiple of size()
  template <contiguous_buffer S, contiguous_buffer R>
  void all_to_all(S const& send, R&& recv) {
    index_t total = buffer_size(send);
    require_size("all_to_all", "recv", buffer_size(recv), total, "send.size()");
    if (total % size() != 0)
      throw argument_error("all_to_all: send.size() = " + std::to_string(total) +
                           " is not a multiple of the group size " + std::to_string(size()));
    all_to_all(std::ranges::data(send), std::ranges::data(recv), total / size());
  }
  // send.size() == recv.size()
  template <contiguous_buffer S, contiguous_buffer R>
  void permute(S const& send, R&& recv, const permutation& pairs) {
    index_t count = buffer_size(send);
    require_size("permute", "recv", buffer_size(recv), count, "send.size()");
    permute(std::ranges::data(send), std::ranges::data(recv), count, pairs);
  }

 protected:
  template <class R>
  static index_t buffer_size(R const& range) {
    return static_cast<index_t>(std::ranges::size(range));
  }
  static void require_size(std::string_view call, std::string_view buffer, index_t actual,
                           index_t expected, std::string_view rule) {
    if (actual != expected)
      throw argument_error(std::string(call) + ": " + std::string(buffer) + " holds " +
                           std::to_string(actual) + " elements, expected " + std::string(rule) +
                           " = " + std::to_string(expected));
  }
};

// Derived communicators re-expose the typed wrappers hidden by their overrides.
#define NAX_COMMUNICATOR_USING_WRAPPERS              \
  using ::nax::detail::communicator::all_reduce;     \
  using ::nax::detail::communicator::all_gather;     \
  using ::nax::detail::communicator::reduce_scatter; \
  using ::nax::detail::communicator::all_to_all;     \
  using ::nax::detail::communicator::permute

}  // namespace nax::detail
