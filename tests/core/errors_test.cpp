// nax's exception types (core/errors.hpp): what each derives from, so users can catch them
// by the standard category, and that the message a caller writes comes back unchanged.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

TEST_CASE("shape_error and argument_error are invalid_argument; device_error is runtime_error") {
  static_assert(std::is_base_of_v<std::invalid_argument, nax::shape_error>);
  static_assert(std::is_base_of_v<std::invalid_argument, nax::argument_error>);
  static_assert(std::is_base_of_v<std::runtime_error, nax::device_error>);
  static_assert(!std::is_base_of_v<nax::shape_error, nax::argument_error>);

  CHECK_THROWS_AS(throw nax::shape_error("x"), std::invalid_argument);
  CHECK_THROWS_AS(throw nax::argument_error("x"), std::logic_error);
  CHECK_THROWS_AS(throw nax::device_error("x"), std::runtime_error);
  CHECK_THROWS_AS(throw nax::device_error("x"), std::exception);
}

TEST_CASE("the message names what the caller put in it") {
  std::string const text = "slice<batch>(x, 0, 16): axis batch has extent 8";
  CHECK_THROWS_WITH_AS(throw nax::shape_error(text), text.c_str(), nax::shape_error);
  CHECK_THROWS_WITH_AS(throw nax::argument_error("bernoulli: p = 1.5 is outside [0, 1]"),
                       "bernoulli: p = 1.5 is outside [0, 1]", nax::argument_error);
  CHECK_THROWS_WITH_AS(throw nax::device_error("cudaMalloc: out of memory"),
                       "cudaMalloc: out of memory", nax::device_error);
}

TEST_CASE("a shape_error is not caught as a device_error") {
  bool caught_as_shape_error = false;
  try {
    try {
      throw nax::shape_error("extent mismatch on axis in: 3 vs 4");
    } catch (nax::device_error const&) {
      FAIL("shape_error caught as device_error");
    }
  } catch (nax::shape_error const& error) {
    caught_as_shape_error = std::string(error.what()).find("axis in") != std::string::npos;
  }
  CHECK(caught_as_shape_error);
}

TEST_CASE("index_t is a signed 64-bit integer (negative strides work)") {
  static_assert(std::is_signed_v<nax::index_t>);
  static_assert(sizeof(nax::index_t) == 8);
}
