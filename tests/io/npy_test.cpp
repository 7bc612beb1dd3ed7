// nax::io::save_npy / load_npy: round trips over every .npy element type on random extents
// (0 and 1 included) and axis orders; files numpy wrote (tests/io/data, make_fixtures.py: big-
// endian, Fortran order, format 2.0 and 3.0, bool, rank 0, empty) checked against plain loops;
// numpy reading what nax wrote (check_numpy.py, where python3 has numpy); every error.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "../support/reference.hpp"
#include "io_support.hpp"

namespace {
NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(c);

using namespace io_test;

// Saves a random array with axes As..., loads it back with the same names, compares every
// element (bitwise: a round trip is exact).
template <class T, class... As>
void round_trip(nax_test::random_source& rng, const scratch& dir) {
  auto x = nax_test::random_array<T, As...>(rng, rng.extents<sizeof...(As)>(4));
  const auto path = dir / "x.npy";
  nax::io::save_npy(path, x);
  auto y = nax::io::load_npy<T, As...>(path);
  CHECK(y.extents() == x.extents());
  for (index_t i = 0; i < x.size(); ++i) CHECK(y.data()[i] == x.data()[i]);
  // numpy's layout: the data begin at a multiple of 64 bytes, right after the header.
  const std::string bytes = slurp(path);
  const std::size_t header = static_cast<unsigned char>(bytes[8]) + 256u * static_cast<unsigned char>(bytes[9]);
  CHECK((10 + header) % 64 == 0);
  CHECK(bytes.size() == 10 + header + static_cast<std::size_t>(x.size()) * sizeof(T));
}

template <class T>
void round_trips(nax_test::random_source& rng, const scratch& dir) {
  for (int rep = 0; rep < 4; ++rep) {
    round_trip<T>(rng, dir);
    round_trip<T, a>(rng, dir);
    round_trip<T, c, a>(rng, dir);
    round_trip<T, b, c, a>(rng, dir);
  }
}

template <class T, class... As>
void numpy_reads(const scratch& dir, const char* dtype, const std::array<index_t, sizeof...(As)>& extents) {
  const auto x = patterned<T, As...>(extents);
  const auto path = dir / "for_numpy.npy";
  nax::io::save_npy(path, x);
  std::string shape;
  for (std::size_t k = 0; k != extents.size(); ++k) shape += (k ? "," : "") + std::to_string(extents[k]);
  const std::string command = numpy_python() + " '" + script("check_numpy.py").string() +
                              "' '" + path.string() + "' '" + dtype + "' '" + shape + "'";
  INFO(command);
  CHECK(std::system(command.c_str()) == 0);
}

}  // namespace

TEST_CASE("save_npy then load_npy gives the same array, for every .npy element type") {
  scratch dir("round_trip");
  nax_test::random_source rng(4101);
  round_trips<float>(rng, dir);
  round_trips<double>(rng, dir);
  round_trips<std::int8_t>(rng, dir);
  round_trips<std::int16_t>(rng, dir);
  round_trips<std::int32_t>(rng, dir);
  round_trips<std::int64_t>(rng, dir);
  round_trips<std::uint8_t>(rng, dir);
  round_trips<std::uint16_t>(rng, dir);
  round_trips<std::uint32_t>(rng, dir);
  round_trips<std::uint64_t>(rng, dir);
  round_trips<bool>(rng, dir);
  CHECK(dir.file_count() == 1);  // (no temporary left beside it)
}

TEST_CASE("save_npy of an expression and of a view evaluates them in their axis order") {
  scratch dir("expression");
  nax_test::random_source rng(4102);
  auto x = nax_test::random_array<double, a, b>(rng, {3, 4});
  nax::io::save_npy(dir / "t.npy", nax::transpose<b, a>(x) * 2.0);
  auto t = nax::io::load_npy<double, b, a>(dir / "t.npy");
  REQUIRE(t.extents() == std::array<index_t, 2>{4, 3});
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) CHECK(t(j, i) == 2.0 * x(i, j));
  nax::io::save_npy(dir / "s.npy", nax::slice<a>(x, 1, 3));
  auto s = nax::io::load_npy<double, a, b>(dir / "s.npy");
  REQUIRE(s.extents() == std::array<index_t, 2>{2, 4});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 4; ++j) CHECK(s(i, j) == x(i + 1, j));
}

TEST_CASE("save_npy replaces an existing file whole") {
  scratch dir("replace");
  nax::Array<float, a> big({1000});
  nax::Array<float, a> small({2}, {1.f, 2.f});
  nax::io::save_npy(dir / "x.npy", big);
  nax::io::save_npy(dir / "x.npy", small);
  auto y = nax::io::load_npy<float, a>(dir / "x.npy");
  REQUIRE(y.size() == 2);
  CHECK(y(1) == 2.f);
  CHECK(dir.file_count() == 1);
}

TEST_CASE("load_npy reads what numpy wrote: byte orders, Fortran order, formats 2.0 and 3.0, bool, rank 0, empty") {
  auto d = nax::io::load_npy<double, a, b, c>(data("c_big_f8.npy"));  // '>f8'
  REQUIRE(d.extents() == std::array<index_t, 3>{2, 3, 4});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 4; ++k) CHECK(d(i, j, k) == 100.0 * double(i) + 10.0 * double(j) + double(k) + 0.25);

  auto f = nax::io::load_npy<std::int32_t, a, b>(data("fortran_i4.npy"));
  REQUIRE(f.extents() == std::array<index_t, 2>{3, 5});
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 5; ++j) CHECK(f(i, j) == 7 * i - 3 * j);

  auto g = nax::io::load_npy<std::int64_t, c, a, b>(data("fortran_big_i8.npy"));  // '>i8', Fortran
  REQUIRE(g.extents() == std::array<index_t, 3>{2, 3, 2});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 2; ++k) CHECK(g(i, j, k) == -1000 * i + 100 * j + k);

  auto u = nax::io::load_npy<std::uint16_t, a>(data("v2_u2.npy"));
  REQUIRE(u.size() == 6);
  for (index_t i = 0; i < 5; ++i) CHECK(u(i) == 257 * i);
  CHECK(u(5) == 65535);

  auto v = nax::io::load_npy<float, a, b>(data("v3_f4.npy"));
  REQUIRE(v.extents() == std::array<index_t, 2>{2, 2});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(v(i, j) == float(i) - 0.5f * float(j));

  auto m = nax::io::load_npy<bool, b, a>(data("bool.npy"));
  REQUIRE(m.extents() == std::array<index_t, 2>{3, 2});
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) CHECK(m(i, j) == ((i + j) % 2 == 1));

  CHECK(nax::io::load_npy<float>(data("scalar_f4.npy")).item() == 1.5f);
  auto e = nax::io::load_npy<double, a, b>(data("empty_f8.npy"));
  CHECK(e.extents() == std::array<index_t, 2>{0, 3});
}

TEST_CASE("numpy reads what save_npy wrote") {
  if (numpy_python().empty()) {
    MESSAGE("numpy checks skipped: python3 with numpy was not found (Debian: python3-numpy)");
    return;
  }
  scratch dir("numpy");
  numpy_reads<float, a, b>(dir, "<f4", {3, 5});
  numpy_reads<double, c, b, a>(dir, "<f8", {2, 1, 4});
  numpy_reads<std::int8_t, a>(dir, "|i1", {7});
  numpy_reads<std::uint16_t, a, b>(dir, "<u2", {0, 3});
  numpy_reads<std::int64_t>(dir, "<i8", {});
  numpy_reads<bool, a, b>(dir, "|b1", {4, 3});
}

TEST_CASE("load_npy and save_npy raise nax::io_error naming the file, what it found and what was expected") {
  scratch dir("errors");
  nax::Array<float, a, b> x({2, 3});
  const auto path = dir / "x.npy";
  nax::io::save_npy(path, x);

  auto dtype = error_of([&] { (void)nax::io::load_npy<double, a, b>(path); });
  CHECK(dtype.find(path.string()) != std::string::npos);
  CHECK(dtype.find("'<f4'") != std::string::npos);
  CHECK(dtype.find("'<f8'") != std::string::npos);
  CHECK(error_of([&] { (void)nax::io::load_npy<std::int32_t, a, b>(path); }).find("'<i4'") != std::string::npos);

  auto rank = error_of([&] { (void)nax::io::load_npy<float, a, b, c>(path); });
  CHECK(rank.find("(2, 3)") != std::string::npos);
  CHECK(rank.find("3 axes (a, b, c)") != std::string::npos);

  const std::string whole = slurp(path);
  write_bytes(dir / "short.npy", whole.substr(0, whole.size() - 5));
  auto truncated = error_of([&] { (void)nax::io::load_npy<float, a, b>(dir / "short.npy"); });
  CHECK(truncated.find("19 bytes of data") != std::string::npos);
  CHECK(truncated.find("needs 24") != std::string::npos);
  CHECK(truncated.find("truncated") != std::string::npos);

  write_bytes(dir / "long.npy", whole + "xyz");
  CHECK(error_of([&] { (void)nax::io::load_npy<float, a, b>(dir / "long.npy"); }).find("bytes after its data") !=
        std::string::npos);

  write_bytes(dir / "header.npy", whole.substr(0, 30));
  CHECK(error_of([&] { (void)nax::io::load_npy<float, a, b>(dir / "header.npy"); }).find("truncated inside its .npy header") !=
        std::string::npos);

  write_bytes(dir / "text.npy", "just some text, long enough to pass the length check");
  CHECK(error_of([&] { (void)nax::io::load_npy<float, a, b>(dir / "text.npy"); }).find("is not a .npy file") !=
        std::string::npos);

  std::string corrupt = whole;
  corrupt.replace(corrupt.find("'shape'"), 7, "'shoes'");
  write_bytes(dir / "corrupt.npy", corrupt);
  CHECK(error_of([&] { (void)nax::io::load_npy<float, a, b>(dir / "corrupt.npy"); }).find("unknown key 'shoes'") !=
        std::string::npos);

  std::string version = whole;
  version[6] = char(9);
  write_bytes(dir / "version.npy", version);
  CHECK(error_of([&] { (void)nax::io::load_npy<float, a, b>(dir / "version.npy"); }).find("version 9.0") !=
        std::string::npos);

  CHECK(error_of([&] { (void)nax::io::load_npy<float, a>(data("structured.npy")); }).find("structured dtype") !=
        std::string::npos);
  auto missing = error_of([&] { (void)nax::io::load_npy<float, a>(dir / "absent.npy"); });
  CHECK(missing.find("cannot open") != std::string::npos);
  CHECK(missing.find("absent.npy") != std::string::npos);

  // A folder that does not exist: nothing is written anywhere, the error names the target.
  const std::size_t before = dir.file_count();
  auto unwritable = error_of([&] { nax::io::save_npy(dir / "no_such_folder" / "x.npy", x); });
  CHECK(unwritable.find("no_such_folder") != std::string::npos);
  CHECK(dir.file_count() == before);
}
