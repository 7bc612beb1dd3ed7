// wait_polling (mesh/polled_wait.hpp), the wait under NCCL collectives, with the device replaced
// by a poll function: it returns when the operation completes, passes on the failure a poll
// reports, and, once the mesh's abort flag is raised by another device's thread, cancels this
// member's part exactly once and raises peer_failure naming the call and the first failure.
// The GPU-side use (nccl_communicator::finish) is tested in tests/cuda/test_nccl.cu.
#include <nax/mesh/polled_wait.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "mesh_test_support.hpp"

using nax::detail::host_abort_state;
using nax::detail::peer_failure;
using nax::detail::poll_result;
using nax::detail::wait_polling;

TEST_CASE("wait_polling returns when the poll reports done, without cancelling") {
  for (int pending : {0, 1, 63, 64, 5000}) {  // the spin, yield and sleep phases
    int polls = 0, cancels = 0;
    host_abort_state abort;
    wait_polling([&] { return polls++ < pending ? poll_result::pending : poll_result::done; }, &abort,
                 [&] { ++cancels; }, "all_reduce");
    CHECK(polls == pending + 1);
    CHECK(cancels == 0);
  }
  int polls = 0;
  wait_polling([&] { return ++polls < 10 ? poll_result::pending : poll_result::done; }, nullptr, [] {}, "barrier");
  CHECK(polls == 10);
}

TEST_CASE("wait_polling passes on the failure a poll reports") {
  int polls = 0, cancels = 0;
  host_abort_state abort;
  CHECK_THROWS_WITH_AS(wait_polling(
                           [&]() -> poll_result {
                             if (++polls == 3) throw nax::device_error("NCCL reported ncclRemoteError");
                             return poll_result::pending;
                           },
                           &abort, [&] { ++cancels; }, "all_gather"),
                       "NCCL reported ncclRemoteError", nax::device_error);
  CHECK(polls == 3);
  CHECK(cancels == 0);  // the poll cancels what it needs itself
}

TEST_CASE("wait_polling: a failure on another device cancels this member's part and raises peer_failure") {
  SUBCASE("raised while waiting, from another thread") {
    host_abort_state abort;
    std::atomic<int> polls{0};
    int cancels = 0;
    std::thread failing([&] {
      while (polls.load() < 100) std::this_thread::yield();  // the waiter is well into its wait
      abort.abort("device 1 threw: out of range");
    });
    std::string text;
    mesh_test::within_seconds(60, [&] {
      try {
        wait_polling([&] { ++polls; return poll_result::pending; }, &abort, [&] { ++cancels; }, "reduce_scatter");
      } catch (peer_failure const& e) {
        text = e.what();
      }
    });
    failing.join();
    CHECK(cancels == 1);
    CHECK(text == "reduce_scatter: another device failed: device 1 threw: out of range");
  }
  SUBCASE("raised before the wait began") {
    host_abort_state abort;
    abort.abort("device 3 threw: bad extent");
    int polls = 0, cancels = 0;
    CHECK_THROWS_WITH_AS(
        wait_polling([&] { ++polls; return poll_result::pending; }, &abort, [&] { ++cancels; }, "permute"),
        "permute: another device failed: device 3 threw: bad extent", peer_failure);
    CHECK(polls == 1);
    CHECK(cancels == 1);
  }
  SUBCASE("an operation that completes is not cancelled, even with the flag up") {
    host_abort_state abort;
    abort.abort("device 0 threw: late");
    int cancels = 0;
    wait_polling([] { return poll_result::done; }, &abort, [&] { ++cancels; }, "barrier");
    CHECK(cancels == 0);
  }
}

TEST_CASE("rethrow_first_failure: the first original failure, else the first peer_failure") {
  auto original = [](const char* what) { return std::make_exception_ptr(std::runtime_error(what)); };
  auto secondary = [](const char* what) { return std::make_exception_ptr(peer_failure(what)); };
  using nax::detail::rethrow_first_failure;
  CHECK_NOTHROW(rethrow_first_failure({nullptr, nullptr}));
  CHECK_NOTHROW(rethrow_first_failure({}));
  CHECK_THROWS_WITH_AS(rethrow_first_failure({secondary("waiting 0"), nullptr, original("device 2"), original("device 3")}),
                       "device 2", std::runtime_error);
  CHECK_THROWS_WITH_AS(rethrow_first_failure({nullptr, secondary("waiting 1"), secondary("waiting 2")}), "waiting 1",
                       peer_failure);
}
