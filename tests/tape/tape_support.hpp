// What the tape's tests share: the text of the argument_error a call raises.
#pragma once
#include <string>

#include <nax/nax.hpp>

namespace nax_tape_test {
// The message of the nax::argument_error that call() raises, or "no error".
inline std::string error_of(auto&& call) {
  try {
    call();
  } catch (const nax::argument_error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace nax_tape_test
