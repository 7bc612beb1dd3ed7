// Waiting for a device collective by polling instead of blocking (cudaStreamSynchronize), so
// that the wait can end in an exception: when the library reports a failure of its own (NCCL's
// asynchronous error: a peer process gone, a network fault) or when another device of the mesh
// has failed and will never arrive (the mesh's abort flag, host_barrier.hpp). Blocking there
// would leave the waiting device hung inside NCCL for good. Used by nccl_communicator.hpp;
// host code with no CUDA in it, so that the logic is tested without a GPU.
#pragma once
#include <chrono>
#include <string_view>
#include <thread>

#include "host_barrier.hpp"

namespace nax::detail {

enum class poll_result { done, pending };

// Calls poll() until it returns done; poll throws on a failure it sees. Between polls: when
// `abort` (may be null) has been raised, calls cancel() (which must end this member's part of
// the operation, e.g. ncclCommAbort) and throws peer_failure naming `call` and the first
// failure. Spins briefly, then yields, then sleeps 20 us between polls, so that a long wait
// for a slow peer does not hold a core the other devices' threads need.
template <class Poll, class Cancel>
void wait_polling(Poll&& poll, host_abort_state const* abort, Cancel&& cancel, std::string_view call) {
  for (long polls = 0;; ++polls) {
    if (poll() == poll_result::done) return;
    if (abort && abort->aborted()) {
      cancel();
      abort->raise(call);
    }
    if (polls < 64)
      cpu_relax();
    else if (polls < 4096)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

}  // namespace nax::detail
