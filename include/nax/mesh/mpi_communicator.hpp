// Communicators between MPI processes (one nax device per rank), and the runtime of a Mesh over
// MPI devices: one communicator per set of mesh axes, made once with the mesh by MPI_Comm_split
// (color = the device's coordinates on the other axes, key = its rank over the set). Included by
// nax/mpi.hpp; needs <mpi.h> and linking with MPI (CMake: MPI::MPI_CXX).
//
// Every call first agrees with the other members on (collective, count, dtype, op, permutation)
// through one small MPI_Allreduce, so that a mismatch raises the same device_error on every rank
// instead of truncating or hanging; set_agreement_checks(false) skips it. MPI errors come back
// as codes (MPI_ERRORS_RETURN on every communicator) and become device_error with the call and
// MPI_Error_string. Reductions mean what they mean on host groups: floating max/min propagate NaN
// and 8/16-bit integer sums and products wrap (nax's own MPI_Ops, see mpi_ops), bool sum/max are
// logical or, prod/min logical and.
#pragma once
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "geometry.hpp"
#include "reduce_kernels.hpp"
#include "runtime.hpp"

namespace nax::detail {

inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

// Throws device_error("<call> failed <where>: <MPI's reason>") unless code is MPI_SUCCESS.
inline void mpi_check(int code, std::string_view call, std::string_view where) {
  if (code != MPI_SUCCESS)
    throw device_error(std::string(call) + " failed " + std::string(where) + ": " +
                       mpi_error_text(code));
}

inline bool mpi_is_initialised() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  return initialised && !finalised;
}

inline void require_mpi_initialised(std::string_view where) {
  if (!mpi_is_initialised())
    throw device_error(std::string(where) +
                       ": MPI is not initialised (or already finalised): create "
                       "nax::mpi::environment env(argc, argv) at the top of main first");
}

inline MPI_Datatype mpi_datatype(dtype type) {
  switch (type) {
    case dtype::f32: return MPI_FLOAT;
    case dtype::f64: return MPI_DOUBLE;
    case dtype::i8: return MPI_INT8_T;
    case dtype::i16: return MPI_INT16_T;
    case dtype::i32: return MPI_INT32_T;
    case dtype::i64: return MPI_INT64_T;
    case dtype::u8: return MPI_UINT8_T;
    case dtype::u16: return MPI_UINT16_T;
    case dtype::u32: return MPI_UINT32_T;
    case dtype::u64: return MPI_UINT64_T;
    case dtype::boolean: return MPI_C_BOOL;
  }
  return MPI_DATATYPE_NULL;
}

namespace mpi_ops {
// MPI user function: inout[i] = in[i] op inout[i], with nax's combine semantics.
template <class T, reduce_op Op>
void combine(void* in, void* inout, int* length, MPI_Datatype*) {
  T const* a = static_cast<T const*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *length; ++i) {
    if constexpr (Op == reduce_op::sum) b[i] = comm_kernels::combine_sum(a[i], b[i]);
    else if constexpr (Op == reduce_op::prod) b[i] = comm_kernels::combine_prod(a[i], b[i]);
    else if constexpr (Op == reduce_op::max) b[i] = comm_kernels::combine_max(a[i], b[i]);
    else b[i] = comm_kernels::combine_min(a[i], b[i]);
  }
}

// nax's own MPI_Ops where the built-in ones differ from nax's semantics:
// - floating max/min: MPI_MAX/MPI_MIN do not propagate NaN;
// - 8- and 16-bit integer sum/prod: Open MPI 4.1's AVX reductions saturate instead of wrapping
//   (open-mpi/ompi#8045, closed as wontfix).
// Created on first use (after MPI_Init), never freed: MPI_Finalize releases them.
struct user_ops {
  MPI_Op table[11][4];
  user_ops() {
    for (auto& row : table)
      for (auto& op : row) op = MPI_OP_NULL;
    make<float, reduce_op::max>(dtype::f32);
    make<float, reduce_op::min>(dtype::f32);
    make<double, reduce_op::max>(dtype::f64);
    make<double, reduce_op::min>(dtype::f64);
    make<std::int8_t, reduce_op::sum>(dtype::i8);
    make<std::int8_t, reduce_op::prod>(dtype::i8);
    make<std::uint8_t, reduce_op::sum>(dtype::u8);
    make<std::uint8_t, reduce_op::prod>(dtype::u8);
    make<std::int16_t, reduce_op::sum>(dtype::i16);
    make<std::int16_t, reduce_op::prod>(dtype::i16);
    make<std::uint16_t, reduce_op::sum>(dtype::u16);
    make<std::uint16_t, reduce_op::prod>(dtype::u16);
  }
  template <class T, reduce_op Op>
  void make(dtype type) {
    mpi_check(MPI_Op_create(&combine<T, Op>, 1,
                            &table[static_cast<int>(type)][static_cast<int>(Op)]),
              "MPI_Op_create", std::string("(") + std::string(reduce_op_name(Op)) + " of " +
                                   std::string(dtype_name(type)) + ")");
  }
};
inline MPI_Op find(dtype type, reduce_op op) {
  static user_ops const ops;
  return ops.table[static_cast<int>(type)][static_cast<int>(op)];
}
}  // namespace mpi_ops

inline MPI_Op mpi_operation(dtype type, reduce_op op) {
  if (type == dtype::boolean)
    return (op == reduce_op::sum || op == reduce_op::max) ? MPI_LOR : MPI_LAND;
  if (MPI_Op own = mpi_ops::find(type, op); own != MPI_OP_NULL) return own;
  switch (op) {
    case reduce_op::sum: return MPI_SUM;
    case reduce_op::prod: return MPI_PROD;
    case reduce_op::max: return MPI_MAX;
    case reduce_op::min: return MPI_MIN;
  }
  return MPI_OP_NULL;
}

class mpi_communicator final : public communicator {
 public:
  // Takes ownership of `comm` (freed in the destructor unless MPI is finalised by then).
  mpi_communicator(MPI_Comm comm, std::string label) : comm_(comm), label_(std::move(label)) {
    mpi_check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler", where());
    mpi_check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size", where());
    mpi_check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank", where());
  }
  mpi_communicator(const mpi_communicator&) = delete;
  mpi_communicator& operator=(const mpi_communicator&) = delete;
  ~mpi_communicator() override {
    if (comm_ != MPI_COMM_NULL && mpi_is_initialised()) MPI_Comm_free(&comm_);
  }

  int size() const override { return size_; }
  int rank() const override { return rank_; }
  MPI_Comm native() const { return comm_; }
  void set_agreement_checks(bool on) { check_agreement_ = on; }
  std::string describe() const override {
    return label_ + " (" + std::to_string(size_) + " members), member " + std::to_string(rank_);
  }
  NAX_COMMUNICATOR_USING_WRAPPERS;

  void all_reduce(void* data, index_t count, dtype type, reduce_op op) override {
    prepare(collective::all_reduce, count, type, op, nullptr);
    std::size_t element_size = dtype_size(type);
    // MPI counts are int: large buffers go in pieces.
    for (index_t offset = 0; offset < count; offset += max_piece) {
      int piece = static_cast<int>(std::min<index_t>(max_piece, count - offset));
      mpi_check(MPI_Allreduce(MPI_IN_PLACE,
                              static_cast<std::byte*>(data) + static_cast<std::size_t>(offset) * element_size,
                              piece, mpi_datatype(type), mpi_operation(type, op), comm_),
                "MPI_Allreduce", where());
    }
  }

  void all_gather(const void* send, void* recv, index_t count, dtype type) override {
    prepare(collective::all_gather, count, type, reduce_op::sum, nullptr);
    require_int_total("all_gather", count);
    if (count == 0) return;
    std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(type);
    bool in_place = send == static_cast<std::byte*>(recv) + static_cast<std::size_t>(rank_) * bytes;
    mpi_check(MPI_Allgather(in_place ? MPI_IN_PLACE : send, static_cast<int>(count), mpi_datatype(type),
                            recv, static_cast<int>(count), mpi_datatype(type), comm_),
              "MPI_Allgather", where());
  }

  void reduce_scatter(const void* send, void* recv, index_t count, dtype type,
                      reduce_op op) override {
    prepare(collective::reduce_scatter, count, type, op, nullptr);
    require_int_total("reduce_scatter", count);
    if (count == 0) return;
    std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(type);
    auto const* send_bytes = static_cast<const std::byte*>(send);
    auto* recv_bytes = static_cast<std::byte*>(recv);
    bool overlaps = recv_bytes < send_bytes + bytes * static_cast<std::size_t>(size_) &&
                    send_bytes < recv_bytes + bytes;
    if (!overlaps) {
      mpi_check(MPI_Reduce_scatter_block(send, recv, static_cast<int>(count), mpi_datatype(type),
                                         mpi_operation(type, op), comm_),
                "MPI_Reduce_scatter_block", where());
      return;
    }
    std::vector<std::byte> staging(bytes);  // recv is send's own block: MPI forbids the alias
    mpi_check(MPI_Reduce_scatter_block(send, staging.data(), static_cast<int>(count),
                                       mpi_datatype(type), mpi_operation(type, op), comm_),
              "MPI_Reduce_scatter_block", where());
    std::memcpy(recv, staging.data(), bytes);
  }

  void all_to_all(const void* send, void* recv, index_t count, dtype type) override {
    prepare(collective::all_to_all, count, type, reduce_op::sum, nullptr);
    require_int_total("all_to_all", count);
    if (count == 0) return;
    mpi_check(MPI_Alltoall(send, static_cast<int>(count), mpi_datatype(type), recv,
                           static_cast<int>(count), mpi_datatype(type), comm_),
              "MPI_Alltoall", where());
  }

  void permute(const void* send, void* recv, index_t count, dtype type,
               const permutation& pairs) override {
    prepare(collective::permute, count, type, reduce_op::sum, &pairs);
    if (count > INT_MAX)
      throw device_error("permute on " + describe() + ": count " + std::to_string(count) +
                         " exceeds MPI's int counts");
    int source = permutation_source(pairs, rank_);
    int destination = permutation_destination(pairs, rank_);
    if (count > 0 && (source >= 0 || destination >= 0)) {
      mpi_check(MPI_Sendrecv(send, static_cast<int>(count), mpi_datatype(type),
                             destination >= 0 ? destination : MPI_PROC_NULL, permute_tag, recv,
                             static_cast<int>(count), mpi_datatype(type),
                             source >= 0 ? source : MPI_PROC_NULL, permute_tag, comm_,
                             MPI_STATUS_IGNORE),
                "MPI_Sendrecv", where());
    }
    if (source < 0 && count > 0)
      std::memset(recv, 0, static_cast<std::size_t>(count) * dtype_size(type));
  }

  void barrier() override {
    prepare(collective::barrier, 0, dtype::u8, reduce_op::sum, nullptr);
    mpi_check(MPI_Barrier(comm_), "MPI_Barrier", where());
  }

 private:
  static constexpr index_t max_piece = index_t{1} << 30;
  static constexpr int permute_tag = 7;

  std::string where() const { return "on " + describe(); }

  void require_int_total(std::string_view call, index_t count) const {
    if (count * size_ > INT_MAX)
      throw device_error(std::string(call) + " on " + describe() + ": " + std::to_string(count) +
                         " elements per member exceed MPI's int counts");
  }

  static std::int64_t permutation_hash(const permutation& pairs) {
    std::uint64_t hash = 1469598103934665603ull ^ pairs.size();
    for (auto const& pair : pairs)
      for (int member : {pair.first, pair.second})
        hash = (hash ^ static_cast<std::uint32_t>(member)) * 1099511628211ull;
    return static_cast<std::int64_t>(hash >> 1);
  }

  // Agreement of all members (one MPI_Allreduce of max over values and their negations), then
  // the checks every member makes alike on the agreed arguments.
  void prepare(collective call, index_t count, dtype type, reduce_op op, const permutation* pairs) {
    std::string_view name = collective_name(call);
    bool reduces = call == collective::all_reduce || call == collective::reduce_scatter;
    if (check_agreement_ && size_ > 1) {
      constexpr int fields = 5;
      std::int64_t mine[fields] = {static_cast<std::int64_t>(call), count,
                                   call == collective::barrier ? 0 : static_cast<std::int64_t>(type),
                                   reduces ? static_cast<std::int64_t>(op) : 0,
                                   pairs ? permutation_hash(*pairs) : 0};
      std::int64_t both[2 * fields], extremes[2 * fields];
      for (int i = 0; i < fields; ++i) {
        both[i] = mine[i];
        both[fields + i] = -mine[i];
      }
      mpi_check(MPI_Allreduce(both, extremes, 2 * fields, MPI_INT64_T, MPI_MAX, comm_),
                "MPI_Allreduce", std::string("(argument agreement of ") + std::string(name) + ") " + where());
      static constexpr const char* what[fields] = {"the collective", "the count", "the dtype",
                                                   "the reduction", "the permutation"};
      for (int i = 0; i < fields; ++i) {
        std::int64_t largest = extremes[i], smallest = -extremes[fields + i];
        if (largest == smallest) continue;
        std::string detail;
        if (i == 0)
          detail = "calls range from " +
                   std::string(collective_name(static_cast<collective>(smallest))) + " to " +
                   std::string(collective_name(static_cast<collective>(largest)));
        else if (i == 1)
          detail = "counts range from " + std::to_string(smallest) + " to " + std::to_string(largest);
        else if (i == 2)
          detail = "dtypes " + std::string(dtype_name(static_cast<dtype>(smallest))) + " and " +
                   std::string(dtype_name(static_cast<dtype>(largest)));
        else if (i == 3)
          detail = "reductions " + std::string(reduce_op_name(static_cast<reduce_op>(smallest))) +
                   " and " + std::string(reduce_op_name(static_cast<reduce_op>(largest)));
        else
          detail = "this member passes " + permutation_text(*pairs);
        throw device_error(std::string(name) + ": " + label_ + " (" + std::to_string(size_) +
                           " members): members disagree on " + what[i] + ": " + detail +
                           " (this is member " + std::to_string(rank_) + ")");
      }
    }
    if (count < 0)
      throw argument_error(std::string(name) + " on " + describe() + ": negative count " +
                           std::to_string(count));
    if (call != collective::barrier && !is_valid(type))
      throw argument_error(std::string(name) + " on " + describe() + ": invalid dtype value " +
                           std::to_string(static_cast<int>(type)));
    if (reduces && !is_valid(op))
      throw argument_error(std::string(name) + " on " + describe() + ": invalid reduce_op value " +
                           std::to_string(static_cast<int>(op)));
    if (pairs) validate_permutation(*pairs, size_, std::string(name) + " on " + label_);
  }

  static std::string permutation_text(permutation const& pairs) {
    std::string text = "[";
    for (std::size_t i = 0; i < pairs.size(); ++i) text += (i ? ", " : "") + pair_text(pairs[i]);
    return text + "]";
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string label_;
  int size_ = 0;
  int rank_ = 0;
  bool check_agreement_ = true;
};

// The runtime of a Mesh over MPI devices (device_ids: world ranks in mesh order).
class mpi_runtime final : public mesh_runtime {
 public:
  mpi_runtime(std::vector<int> const& device_ids, mesh_geometry const& geometry) {
    require_mpi_initialised("Mesh over MPI devices");
    int world_rank = 0;
    mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank", "on MPI_COMM_WORLD");
    for (std::size_t position = 0; position < device_ids.size(); ++position)
      if (device_ids[position] == world_rank) local_.push_back(static_cast<int>(position));
    int device = local_.empty() ? -1 : local_.front();
    // A private copy of the world, so that nax's traffic never matches the user's messages.
    MPI_Comm base = MPI_COMM_NULL;
    mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &base), "MPI_Comm_dup", "on MPI_COMM_WORLD");
    MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
    struct free_base {
      MPI_Comm* comm;
      ~free_base() { MPI_Comm_free(comm); }
    } free_later{&base};
    axis_mask sets = axis_mask{1} << geometry.rank();
    comms_.resize(sets);
    for (axis_mask axes = 1; axes < sets; ++axes) {
      int color = device >= 0 ? geometry.group_index(device, axes) : MPI_UNDEFINED;
      int key = device >= 0 ? geometry.rank_in_group(device, axes) : 0;
      MPI_Comm split = MPI_COMM_NULL;
      std::string label = device >= 0 ? "MPI group " + geometry.group_text(device, axes) : "";
      mpi_check(MPI_Comm_split(base, color, key, &split), "MPI_Comm_split",
                "building the communicator over " + geometry.axes_text(axes));
      if (device < 0) continue;
      comms_[axes] = std::make_unique<mpi_communicator>(split, label);
      if (comms_[axes]->size() != geometry.group_size(axes) || comms_[axes]->rank() != key)
        throw device_error("MPI_Comm_split over " + geometry.axes_text(axes) + " gave " +
                           std::to_string(comms_[axes]->size()) + " members (rank " +
                           std::to_string(comms_[axes]->rank()) + "), expected " +
                           std::to_string(geometry.group_size(axes)) + " (rank " +
                           std::to_string(key) + ")");
    }
  }

  communicator& comm(axis_mask axes, int device) override {
    if (!is_local(device))
      throw argument_error("MPI mesh: device " + std::to_string(device) +
                           " is not run by this process");
    return *comms_.at(axes);
  }
  mpi_communicator& native(axis_mask axes) { return *comms_.at(axes); }
  bool is_local(int device) const override {
    return !local_.empty() && device == local_.front();
  }
  std::vector<int> const& local_devices() const override { return local_; }

  // This rank's device runs in the calling thread. An exception propagates to this rank's
  // caller only: MPI cannot interrupt the other ranks (let it end the process, and mpirun ends
  // the job; nax::mpi::environment calls MPI_Abort when destroyed by an exception).
  void run(std::function<void(int)> const& body) override {
    for (int device : local_) body(device);
  }

 private:
  std::vector<std::unique_ptr<mpi_communicator>> comms_;  // [axis set]
  std::vector<int> local_;
};

class mpi_platform final : public device_platform {
 public:
  std::shared_ptr<mesh_runtime> make_runtime(std::vector<int> const& device_ids,
                                             mesh_geometry const& geometry) const override {
    return std::make_shared<mpi_runtime>(device_ids, geometry);
  }
};

}  // namespace nax::detail
