// The persistent threads of host devices: one std::thread per emulated device, created once with
// the mesh, each with its own OpenMP thread budget (the process's budget divided by the device
// count, at least 1), so that n devices on a few cores do not oversubscribe them.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "../backend/host/threads.hpp"
#include "../core/errors.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace nax::detail {

class device_thread_pool {
 public:
  // `threads` workers; each calls omp_set_num_threads(openmp_threads_per_worker) once at start.
  explicit device_thread_pool(int threads)
      : openmp_threads_(std::max(1, host::max_threads() / std::max(1, threads))),
        failures_(static_cast<std::size_t>(threads)) {
    workers_.reserve(static_cast<std::size_t>(threads));
    for (int worker = 0; worker < threads; ++worker)
      workers_.emplace_back([this, worker] { work(worker); });
  }
  device_thread_pool(const device_thread_pool&) = delete;
  device_thread_pool& operator=(const device_thread_pool&) = delete;
  ~device_thread_pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    start_.notify_all();
    for (auto& worker : workers_) worker.join();
  }

  int size() const { return static_cast<int>(workers_.size()); }
  int openmp_threads_per_worker() const { return openmp_threads_; }

  // Runs task(w) on every worker w concurrently and waits for all of them. Returns the exception
  // of each worker (null where it finished normally). Not reentrant: a task that calls run on
  // the pool that runs it gets a device_error; concurrent callers take turns.
  std::vector<std::exception_ptr> run(std::function<void(int)> const& task) {
    if (current_pool() == this)
      throw device_error("Mesh::run: called from inside a device of the same mesh (nested run "
                         "would wait for itself)");
    std::lock_guard serial(run_mutex_);
    {
      std::lock_guard lock(mutex_);
      task_ = &task;
      std::fill(failures_.begin(), failures_.end(), nullptr);
      remaining_ = size();
      ++round_;
    }
    start_.notify_all();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return remaining_ == 0; });
    task_ = nullptr;
    return failures_;
  }

 private:
  static device_thread_pool*& current_pool() {
    thread_local device_thread_pool* pool = nullptr;
    return pool;
  }

  void work(int worker) {
    current_pool() = this;
#if defined(_OPENMP)
    omp_set_num_threads(openmp_threads_);
#endif
    std::uint64_t seen = 0;
    for (;;) {
      std::function<void(int)> const* task;
      {
        std::unique_lock lock(mutex_);
        start_.wait(lock, [&] { return stopping_ || round_ != seen; });
        if (stopping_) return;
        seen = round_;
        task = task_;
      }
      std::exception_ptr failure;
      try {
        (*task)(worker);
      } catch (...) {
        failure = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        failures_[static_cast<std::size_t>(worker)] = failure;
        if (--remaining_ == 0) done_.notify_all();
      }
    }
  }

  int openmp_threads_;
  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::function<void(int)> const* task_ = nullptr;
  std::vector<std::exception_ptr> failures_;
  int remaining_ = 0;
  std::uint64_t round_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace nax::detail
