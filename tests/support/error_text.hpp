// The text of the error a call raises, for tests that check messages.
#pragma once
#include <exception>
#include <string>

namespace nax_test {
// The message of the E that call() raises, or "no error".
template <class E = std::exception, class F>
std::string error_text(F&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace nax_test
