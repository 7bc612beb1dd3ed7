// Helpers shared by the tests of include/nax/mesh/: deterministic inputs per device, reference
// reductions written independently of the communicators, group membership computed from mesh
// coordinates, and a guard that turns a hang into a test failure.
#pragma once
#include <nax/mesh/mesh.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace mesh_test {

// Runs f on another thread; if it does not finish within `seconds`, reports and ends the
// process (a hung collective cannot be cancelled). Not a template: std::async's machinery is
// instantiated once, not once per test lambda (it was most of these files' compile time).
inline void within_seconds(double seconds, std::function<void()> f) {
  auto task = std::async(std::launch::async, std::move(f));
  if (task.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::timeout) {
    std::fprintf(stderr, "mesh test: timed out after %.0f s (a collective hangs)\n", seconds);
    std::fflush(stderr);
    std::_Exit(3);
  }
  task.get();  // rethrows
}

// A value that differs per device, element and salt; small enough that products of a few stay
// exact, with negatives for signed types and fractions for floating types.
template <class T>
T value(int device, std::int64_t i, int salt = 0) {
  std::int64_t k = (device * 7 + i * 3 + salt * 5) % 13;
  if constexpr (std::is_same_v<T, bool>) {
    return k % 3 == 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(k - 6) * static_cast<T>(0.75) + static_cast<T>(device) * static_cast<T>(0.125);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(k - 6);
  } else {
    return static_cast<T>(std::numeric_limits<T>::max() - 12 + static_cast<T>(k));  // sums wrap
  }
}

// A contiguous buffer of T that, unlike std::vector<bool>, also holds bool as bool.
template <class T>
class buffer {
 public:
  buffer() = default;
  explicit buffer(std::size_t size, T fill = T{}) : size_(size), data_(new T[size]) {
    for (std::size_t i = 0; i < size; ++i) data_[i] = fill;
  }
  buffer(std::initializer_list<T> values) : buffer(values.size()) {
    std::size_t i = 0;
    for (T v : values) data_[i++] = v;
  }
  buffer(buffer const& other) : buffer(other.size_) {
    for (std::size_t i = 0; i < size_; ++i) data_[i] = other.data_[i];
  }
  buffer(buffer&&) noexcept = default;
  buffer& operator=(buffer other) noexcept {
    std::swap(size_, other.size_);
    std::swap(data_, other.data_);
    return *this;
  }
  std::size_t size() const { return size_; }
  T* data() { return data_.get(); }
  T const* data() const { return data_.get(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  T const* begin() const { return data(); }
  T const* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  T const& operator[](std::size_t i) const { return data_[i]; }
  // Appends [first, last).
  void append(T const* first, T const* last) {
    buffer grown(size_ + static_cast<std::size_t>(last - first));
    for (std::size_t i = 0; i < size_; ++i) grown.data_[i] = data_[i];
    for (std::size_t i = size_; first != last; ++i, ++first) grown.data_[i] = *first;
    *this = std::move(grown);
  }

 private:
  std::size_t size_ = 0;
  std::unique_ptr<T[]> data_;
};

// The reference reductions: member order, two's complement wrap, bool or/and, NaN propagation.
template <class T>
T reference_combine(T a, T b, nax::detail::reduce_op op) {
  using nax::detail::reduce_op;
  if constexpr (std::is_same_v<T, bool>) {
    return (op == reduce_op::sum || op == reduce_op::max) ? (a || b) : (a && b);
  } else if constexpr (std::is_integral_v<T>) {
    std::uint64_t ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    switch (op) {
      case reduce_op::sum: return static_cast<T>(ua + ub);
      case reduce_op::prod: return static_cast<T>(ua * ub);
      case reduce_op::max: return a < b ? b : a;
      case reduce_op::min: return b < a ? b : a;
    }
    return a;
  } else {
    switch (op) {
      case reduce_op::sum: return a + b;
      case reduce_op::prod: return a * b;
      case reduce_op::max: return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? b : a);
      case reduce_op::min: return std::isnan(a) || std::isnan(b) ? NAN : (b < a ? b : a);
    }
    return a;
  }
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) && std::isnan(b)) return true;
  return a == b;
}

// The members (mesh positions, by rank) of `device`'s group over the mesh axes As.
template <class Mesh, class... As>
std::vector<int> group_members(Mesh const& mesh, int device) {
  using names = typename Mesh::axis_names;
  constexpr std::size_t rank = Mesh::rank;
  std::array<bool, rank> in_set{};
  ((in_set[nax::detail::index_of_v<As, names>] = true), ...);
  auto const mine = mesh.coordinates(device);
  int group_size = 1;
  for (std::size_t i = 0; i < rank; ++i)
    if (in_set[i]) group_size *= mesh.shape()[i];
  std::vector<int> members(static_cast<std::size_t>(group_size), -1);
  for (int other = 0; other < mesh.device_count(); ++other) {
    auto const theirs = mesh.coordinates(other);
    bool same_group = true;
    int member_rank = 0;
    for (std::size_t i = 0; i < rank; ++i) {
      if (in_set[i])
        member_rank = member_rank * mesh.shape()[i] + theirs[i];
      else if (theirs[i] != mine[i])
        same_group = false;
    }
    if (same_group) members[static_cast<std::size_t>(member_rank)] = other;
  }
  return members;
}

template <class Mesh, class... As>
int rank_in_group(Mesh const& mesh, int device) {
  auto members = group_members<Mesh, As...>(mesh, device);
  for (std::size_t r = 0; r < members.size(); ++r)
    if (members[r] == device) return static_cast<int>(r);
  return -1;
}

}  // namespace mesh_test
