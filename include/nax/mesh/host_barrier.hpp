// The rendezvous of host device threads: a reusable barrier (generation counter, a short spin,
// then a condition variable) that a shared abort flag can break, so that one failing device
// never leaves the others waiting forever inside a collective. Used by host_communicator.hpp.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../core/errors.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace nax::detail {

// Raised in a device that was waiting for (or about to wait for) another device that failed.
// Mesh::run rethrows the original failure, not this one.
struct peer_failure : device_error {
  using device_error::device_error;
};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

class host_barrier;

// Shared by every group of one mesh: abort() wakes every waiting member of every group.
class host_abort_state {
 public:
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  std::string reason() const {
    std::lock_guard lock(mutex_);
    return reason_;
  }
  void abort(std::string reason);  // defined after host_barrier
  void reset() {
    std::lock_guard lock(mutex_);
    reason_.clear();
    aborted_.store(false, std::memory_order_release);
  }
  void attach(host_barrier* barrier) {
    std::lock_guard lock(mutex_);
    barriers_.push_back(barrier);
  }
  [[noreturn]] void raise(std::string_view call) const {
    throw peer_failure(std::string(call) + ": another device failed: " + reason());
  }

 private:
  mutable std::mutex mutex_;
  std::atomic<bool> aborted_{false};
  std::string reason_;
  std::vector<host_barrier*> barriers_;
};

class host_barrier {
 public:
  host_barrier(int members, host_abort_state* abort, std::string label = "host group")
      : members_(members), abort_(abort), label_(std::move(label)) {
    if (abort_) abort_->attach(this);
  }
  host_barrier(const host_barrier&) = delete;
  host_barrier& operator=(const host_barrier&) = delete;

  // Returns when all members have arrived. Throws peer_failure (naming `call`) when the abort
  // flag is raised before this member's generation completes, and device_error when a member
  // has departed (returned from its device function), since it can never arrive.
  void arrive_and_wait(std::string_view call) {
    if (members_ == 1) {
      check_abort(call);
      return;
    }
    std::uint64_t generation;
    {
      std::unique_lock lock(mutex_);
      check_abort(call);
      check_departed(call);
      generation = generation_.load(std::memory_order_relaxed);
      if (++arrived_ == members_) {
        arrived_ = 0;
        generation_.store(generation + 1, std::memory_order_release);
        lock.unlock();
        condition_.notify_all();
        return;
      }
    }
    // Spin briefly (the common case when devices have their own cores), yield, then sleep.
    for (int i = 0; i < spin_iterations; ++i) {
      if (generation_.load(std::memory_order_acquire) != generation) return;
      cpu_relax();
    }
    for (int i = 0; i < yield_iterations; ++i) {
      if (generation_.load(std::memory_order_acquire) != generation) return;
      if (abort_ && abort_->aborted()) break;
      std::this_thread::yield();
    }
    std::unique_lock lock(mutex_);
    condition_.wait(lock, [&] {
      return generation_.load(std::memory_order_acquire) != generation ||
             (abort_ && abort_->aborted()) || departed_ > 0;
    });
    if (generation_.load(std::memory_order_acquire) != generation) return;
    // This generation cannot complete any more; leave it so the others see a consistent count.
    --arrived_;
    check_abort(call);
    check_departed(call);
  }

  // A member's device function returned: it will not arrive again in this Mesh::run.
  void depart() {
    {
      std::lock_guard lock(mutex_);
      ++departed_;
    }
    condition_.notify_all();
  }

  // Wakes waiting members (after the abort flag was raised).
  void wake() {
    { std::lock_guard lock(mutex_); }
    condition_.notify_all();
  }

  // Forgets members that arrived at an interrupted generation. Only when no member is inside.
  void reset() {
    std::lock_guard lock(mutex_);
    departed_ = 0;
    if (arrived_ != 0) {
      arrived_ = 0;
      generation_.fetch_add(1, std::memory_order_release);
    }
  }

 private:
  static constexpr int spin_iterations = 2000;
  static constexpr int yield_iterations = 200;

  void check_abort(std::string_view call) const {
    if (abort_ && abort_->aborted()) abort_->raise(call);
  }
  // Caller holds mutex_.
  void check_departed(std::string_view call) const {
    if (departed_ > 0)
      throw device_error(std::string(call) + " on " + label_ +
                         ": a member returned from its device function without making this "
                         "call (the devices' sequences of collective calls do not match)");
  }

  int members_;
  host_abort_state* abort_;
  std::string label_;
  std::mutex mutex_;
  int departed_ = 0;
  std::condition_variable condition_;
  int arrived_ = 0;
  std::atomic<std::uint64_t> generation_{0};
};

inline void host_abort_state::abort(std::string reason) {
  std::vector<host_barrier*> barriers;
  {
    std::lock_guard lock(mutex_);
    if (aborted_.load(std::memory_order_relaxed)) return;  // keep the first reason
    reason_ = std::move(reason);
    aborted_.store(true, std::memory_order_release);
    barriers = barriers_;
  }
  for (host_barrier* barrier : barriers) barrier->wake();
}

}  // namespace nax::detail
