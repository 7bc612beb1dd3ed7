// The persistent threads of host devices: one std::thread per emulated device, created once with
// the mesh, each with its own OpenMP thread budget (the process's budget divided by the device
// count, at least 1), so that n devices on a few cores do not oversubscribe them.
// A pool of one device may run it on the calling thread instead (host meshes do): a second
// thread with an OpenMP team of its own, next to the caller's team, makes libgomp count more
// threads than cores, and it then stops spinning between parallel regions, so every region
// of either team waits for a sleeping thread to wake (docs/toolchain.md, "libgomp stops
// spinning ...", and bench/openmp_teams.cpp).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "../backend/host/threads.hpp"
#include "../core/errors.hpp"
#include "../core/tape_hooks.hpp"
#include "axis_bindings.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace nax::detail {

class device_thread_pool {
 public:
  // `threads` workers; each calls omp_set_num_threads(openmp_threads_per_worker) once at start.
  // With single_on_caller and one device, no thread: run() calls the task on its caller.
  explicit device_thread_pool(int threads, bool single_on_caller = false)
      : openmp_threads_(std::max(1, host::max_threads() / std::max(1, threads))),
        size_(threads),
        failures_(static_cast<std::size_t>(threads)) {
    if (single_on_caller && threads == 1) return;
    workers_.reserve(static_cast<std::size_t>(threads));
    for (int worker = 0; worker < threads; ++worker)
      workers_.emplace_back([this, worker] { work(worker); });
  }
  device_thread_pool(const device_thread_pool&) = delete;
  device_thread_pool& operator=(const device_thread_pool&) = delete;
  ~device_thread_pool() {
    stopping_.store(true, std::memory_order_release);
    round_.fetch_add(1, std::memory_order_release);
    round_.notify_all();
    for (auto& worker : workers_) worker.join();
  }

  int size() const { return size_; }
  int openmp_threads_per_worker() const { return openmp_threads_; }

  // Whether the calling thread is one of this pool's workers.
  bool is_worker_thread() const { return current_pool() == this; }

  // Runs task(w) on every worker w concurrently and waits for all of them. Returns the exception
  // of each worker (null where it finished normally). Not reentrant: a task that calls run on
  // the pool that runs it gets a device_error; concurrent callers take turns.
  std::vector<std::exception_ptr> run(std::function<void(int)> const& task) {
    if (is_worker_thread())
      throw device_error("Mesh::run: called from inside a device of the same mesh (nested run "
                         "would wait for itself)");
    std::lock_guard serial(run_mutex_);
    if (workers_.empty()) return run_on_caller(task);
    task_ = &task;
    std::fill(failures_.begin(), failures_.end(), nullptr);
    remaining_.store(size(), std::memory_order_relaxed);
    round_.fetch_add(1, std::memory_order_release);  // publishes task_ and failures_
    round_.notify_all();
    for (int left; (left = remaining_.load(std::memory_order_acquire)) != 0;)
      remaining_.wait(left, std::memory_order_acquire);
    task_ = nullptr;
    return failures_;
  }

 private:
  static device_thread_pool*& current_pool() {
    thread_local device_thread_pool* pool = nullptr;
    return pool;
  }

  // The one device's task on the calling thread, which meanwhile looks like a fresh device
  // thread: this pool's (so a nested run is refused), no tape recording, no axis bindings,
  // the device's OpenMP budget. All restored after.
  std::vector<std::exception_ptr> run_on_caller(std::function<void(int)> const& task) {
    struct as_device_thread {
      device_thread_pool* pool;
      device_thread_pool* previous_pool = current_pool();
      tape_interface* previous_tape = active_tape;
      std::vector<axis_binding> previous_bindings = std::move(axis_environment());
#if defined(_OPENMP)
      int previous_threads = omp_get_max_threads();
#endif
      explicit as_device_thread(device_thread_pool* p) : pool(p) {
        current_pool() = pool;
        active_tape = nullptr;
        axis_environment().clear();
#if defined(_OPENMP)
        omp_set_num_threads(pool->openmp_threads_);
#endif
      }
      ~as_device_thread() {
#if defined(_OPENMP)
        omp_set_num_threads(previous_threads);
#endif
        axis_environment() = std::move(previous_bindings);
        active_tape = previous_tape;
        current_pool() = previous_pool;
      }
    } scope(this);
    std::fill(failures_.begin(), failures_.end(), nullptr);
    try {
      task(0);
    } catch (...) {
      failures_[0] = std::current_exception();
    }
    return failures_;
  }

  void work(int worker) {
    current_pool() = this;
#if defined(_OPENMP)
    omp_set_num_threads(openmp_threads_);
#endif
    std::uint32_t seen = 0;
    for (;;) {
      std::uint32_t round;
      while ((round = round_.load(std::memory_order_acquire)) == seen)
        round_.wait(seen, std::memory_order_acquire);
      if (stopping_.load(std::memory_order_acquire)) return;
      seen = round;
      std::exception_ptr failure;
      try {
        (*task_)(worker);
      } catch (...) {
        failure = std::current_exception();
      }
      failures_[static_cast<std::size_t>(worker)] = failure;
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_all();
    }
  }

  int openmp_threads_;
  int size_;
  std::mutex run_mutex_;
  std::function<void(int)> const* task_ = nullptr;
  std::vector<std::exception_ptr> failures_;
  std::atomic<int> remaining_{0};
  std::atomic<std::uint32_t> round_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

}  // namespace nax::detail
