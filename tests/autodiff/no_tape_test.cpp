// This area is compiled with NAX_NO_TAPE (tests/CMakeLists.txt): inside grad, an evaluation
// that depends on the differentiated argument raises an error instead of recording (and
// instead of the silent 0 derivative of an unrecorded constant); constants still evaluate.
#include "finite_difference.hpp"

namespace {
NAX_AXIS(i);
}

TEST_CASE("grad without the tape (NAX_NO_TAPE): an evaluation of the argument raises, a constant does not") {
  auto x = nax::ones<double, i>(3);
  std::string text;
  try {
    nax::grad([](const auto& v) {
      nax::Array<double, i> h = v * 2.0;
      return nax::sum(h);
    })(x);
  } catch (const nax::argument_error& e) {
    text = e.what();
  }
  CHECK(text.find("does not record evaluations (compiled with NAX_NO_TAPE") != std::string::npos);
  std::string copy_text;  // a copy of the argument is an evaluation too
  try {
    nax::grad([](const auto& v) {
      nax::Array<double, i> h = v;
      return nax::sum(h);
    })(x);
  } catch (const nax::argument_error& e) {
    copy_text = e.what();
  }
  CHECK(copy_text.find("does not record evaluations") != std::string::npos);
  auto c = nax::ones<double, i>(3);
  auto g = nax::grad([&](const auto& v) {
    nax::Array<double, i> k = c * 3.0;  // reads no argument
    nax::Array<double, i> k2 = k;       // a copy of a constant: a plain copy
    return nax::sum(v * k2);
  })(x);
  for (nax::index_t p = 0; p < 3; ++p) CHECK(g(p) == 3.0);
}
