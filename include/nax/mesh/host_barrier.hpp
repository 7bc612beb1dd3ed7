// The rendezvous of host device threads: a reusable barrier (generation counter, a short spin,
// then a futex wait through std::atomic::wait) that a shared abort flag can break, so that one failing device
// never leaves the others waiting forever inside a collective. Used by host_communicator.hpp.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
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

// After a run: rethrows the first original failure (by device index), else the first
// peer_failure; returns when every device finished normally.
inline void rethrow_first_failure(std::vector<std::exception_ptr> const& failures) {
  std::exception_ptr secondary;
  for (auto const& failure : failures) {
    if (!failure) continue;
    try {
      std::rethrow_exception(failure);
    } catch (peer_failure const&) {
      if (!secondary) secondary = failure;
    } catch (...) {
      throw;
    }
  }
  if (secondary) std::rethrow_exception(secondary);
}

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
  // Runs device's body; if it throws, raises the flag ("device 2 threw: ...") and rethrows.
  template <class Body>
  void run_device(int device, Body&& body) {
    try {
      body();
    } catch (std::exception const& error) {
      abort("device " + std::to_string(device) + " threw: " + error.what());
      throw;
    } catch (...) {
      abort("device " + std::to_string(device) + " threw an exception");
      throw;
    }
  }

 private:
  mutable std::mutex mutex_;
  std::atomic<bool> aborted_{false};
  std::string reason_;
  std::vector<host_barrier*> barriers_;
};

class host_barrier {
 public:
  // spin: how often a waiting member polls before it sleeps; worth it only when every device
  // thread has a core of its own (default_spin).
  host_barrier(int members, host_abort_state* abort, std::string label = "host group",
               int spin = -1)
      : members_(members),
        spin_(spin >= 0 ? spin : default_spin(members)),
        abort_(abort),
        label_(std::move(label)) {
    if (abort_) abort_->attach(this);
  }
  host_barrier(const host_barrier&) = delete;
  host_barrier& operator=(const host_barrier&) = delete;

  // Returns when all members have arrived. Throws peer_failure (naming `call`) when the abort
  // flag is raised before this member's generation completes, and device_error when a member
  // has departed (returned from its device function), since it can never arrive.
  void arrive_and_wait(std::string_view call) {
    check_abort(call);
    if (members_ == 1) return;
    check_departed(call);
    std::uint32_t const generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == members_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_release);
      signal_.fetch_add(1, std::memory_order_release);
      signal_.notify_all();
      return;
    }
    // Spin briefly (the common case when devices have their own cores), then sleep on the
    // signal word, which changes when the generation completes, on abort and on departure.
    for (int i = 0; i < spin_; ++i) {
      if (generation_.load(std::memory_order_acquire) != generation) return;
      cpu_relax();
    }
    for (;;) {
      std::uint32_t const signal = signal_.load(std::memory_order_acquire);
      if (generation_.load(std::memory_order_acquire) != generation) return;
      check_abort(call);
      // A member that completed this generation may already have returned and departed
      // between the load above and this check: its departure is ordered after the generation
      // it saw complete, so read the generation again before calling it a mismatch.
      if (departed_.load(std::memory_order_acquire) > 0) {
        if (generation_.load(std::memory_order_acquire) != generation) return;
        check_departed(call);
      }
      signal_.wait(signal, std::memory_order_acquire);
    }
  }

  // Polling rounds before sleeping, for `device_threads` threads on this machine. Measured on 2
  // cores: polling longer than ~64 rounds only costs when threads share cores, and the futex
  // wait behind std::atomic::wait polls a little by itself.
  static int default_spin(int device_threads) {
    unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 || static_cast<unsigned>(device_threads) <= cores ? 64 : 0;
  }

  // Wakes waiting members (after the abort flag was raised).
  void wake() {
    signal_.fetch_add(1, std::memory_order_release);
    signal_.notify_all();
  }

  // A member's device function returned: it will not arrive again in this Mesh::run.
  void depart() {
    departed_.fetch_add(1, std::memory_order_release);
    wake();
  }

  // Forgets members that arrived at an interrupted generation, and departures. Only when no
  // member is inside (Mesh::run calls it after every device has returned).
  void reset() {
    departed_.store(0, std::memory_order_relaxed);
    if (arrived_.exchange(0, std::memory_order_relaxed) != 0)
      generation_.fetch_add(1, std::memory_order_release);
  }

 private:

  void check_abort(std::string_view call) const {
    if (abort_ && abort_->aborted()) abort_->raise(call);
  }
  void check_departed(std::string_view call) const {
    if (departed_.load(std::memory_order_acquire) > 0)
      throw device_error(std::string(call) + " on " + label_ +
                         ": a member returned from its device function without making this "
                         "call (the devices' sequences of collective calls do not match)");
  }

  int members_;
  int spin_;
  host_abort_state* abort_;
  std::string label_;
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<std::uint32_t> generation_{0};
  alignas(64) std::atomic<std::uint32_t> signal_{0};
  std::atomic<int> departed_{0};
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
