// What tests/io's files share: a scratch folder per test case, the committed numpy fixtures,
// the text of an io_error, the value pattern the Python checkers expect, and a Python that
// imports numpy.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <nax/io.hpp>
#include <nax/nax.hpp>

namespace io_test {

using nax::index_t;
namespace fs = std::filesystem;

// A fresh folder for one test case's files, removed afterwards.
struct scratch {
  fs::path dir;
  explicit scratch(const std::string& name) {
    dir = fs::temp_directory_path() / ("nax_io_test_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  fs::path operator/(const std::string& file) const { return dir / file; }
  std::size_t file_count() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
  }
};

// A file numpy wrote (tests/io/make_fixtures.py), or a checker script beside this header.
inline fs::path data(const std::string& file) { return fs::path(NAX_TEST_SOURCE_DIR) / "io" / "data" / file; }
inline fs::path script(const std::string& file) { return fs::path(NAX_TEST_SOURCE_DIR) / "io" / file; }

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
inline void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The text of the nax::io_error f raises, or "(no io_error)".
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const nax::io_error& e) {
    return e.what();
  }
  return "(no io_error)";
}

// The values check_numpy.py and check_npz.py expect, element i in row-major order.
template <class T>
T pattern(index_t i) {
  if constexpr (std::is_same_v<T, bool>) return i % 3 == 0;
  else return static_cast<T>((37 * i) % 101 - 50);
}
template <class T, class... As>
nax::Array<T, As...> patterned(const std::array<index_t, sizeof...(As)>& extents) {
  nax::Array<T, As...> x(extents);
  for (index_t i = 0; i < x.size(); ++i) x.data()[i] = pattern<T>(i);
  return x;
}

// A Python that imports numpy: python3 on PATH, else Debian's (a PATH may lead to another Python
// first, e.g. pyenv's). Empty when there is none.
inline const std::string& numpy_python() {
  static const std::string found = [] {
    for (const char* python : {"python3", "/usr/bin/python3"})
      if (std::system((std::string(python) + " -c 'import numpy' > /dev/null 2>&1").c_str()) == 0) return std::string(python);
    return std::string();
  }();
  return found;
}

}  // namespace io_test
