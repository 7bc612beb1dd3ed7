// The conformance suite's own tools: npy.hpp reads what numpy writes and fails loudly on
// anything else; conf::compare catches wrong values, shapes and element types.
#include "conformance.hpp"

#include <cstdio>
#include <filesystem>

namespace {

NAX_AXIS(a);
NAX_AXIS(b);

// A .npy v1 file with the given header dict and payload.
std::string write_npy(const std::string& name, const std::string& dict, const std::string& payload,
                      int version = 1) {
  std::string header = dict;
  const std::size_t pre = version == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string file = "\x93NUMPY";
  file += char(version);
  file += char(0);
  const std::size_t n = header.size();
  file += char(n & 0xff);
  file += char((n >> 8) & 0xff);
  if (version != 1) {
    file += char(0);
    file += char(0);
  }
  file += header + payload;
  const auto path = (std::filesystem::temp_directory_path() / ("nax_conformance_" + name + ".npy")).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(file.data(), 1, file.size(), f);
  std::fclose(f);
  return path;
}

std::string floats(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

}  // namespace

TEST_CASE("npy: reads numpy's v1 and v2 files: dtype, shape, C-order values") {
  const auto p = write_npy("ok", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", floats({1, 2, 3, 4, 5, 6}));
  const auto arr = npy::load(p);
  CHECK(arr.dtype() == "float32");
  CHECK(arr.shape == std::vector<std::int64_t>{2, 3});
  CHECK(arr.values<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  const auto x = conf::to_array<float, a, b>(arr);
  CHECK(x(1, 0) == 4.f);
  CHECK_THROWS_WITH_AS(arr.values<double>(), doctest::Contains("holds <f4"), std::runtime_error);
  CHECK_THROWS_AS((conf::to_array<float, a>(arr)), std::runtime_error);  // rank 2 read as rank 1

  const auto scalar = npy::load(write_npy("scalar", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                          std::string("\0\0\0\0\0\0\xf0\x3f", 8)));
  CHECK(scalar.shape.empty());
  CHECK(scalar.as_double(0) == 1.0);
  const auto v2 = npy::load(write_npy("v2", "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                                      std::string("\1\0\1", 3), 2));
  CHECK(v2.values<bool>() == std::vector<bool>{true, false, true});
  // A file written by generate.py.
  const auto real = npy::load(conf::data_dir() + "/core/dot_inner_f64.out0.npy");
  CHECK(real.dtype() == "float64");
  CHECK(real.shape.empty());
}

TEST_CASE("npy: fails loudly on what it does not read") {
  auto fails = [](const std::string& name, const std::string& dict, const std::string& payload, const char* why) {
    CHECK_THROWS_WITH_AS(npy::load(write_npy(name, dict, payload)), doctest::Contains(why), std::runtime_error);
  };
  fails("fortran", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1), }", floats({1, 2}), "Fortran");
  fails("bigendian", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", floats({1, 2}), "unsupported dtype");
  fails("object", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", floats({1, 2}), "unsupported dtype");
  fails("complex", "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", floats({1, 2}), "unsupported dtype");
  fails("short", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", floats({1, 2}), "bytes");
  fails("long", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", floats({1, 2}), "bytes");
  fails("bool", "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", std::string("\2", 1), "not 0 or 1");
  CHECK_THROWS_WITH_AS(npy::load("/nonexistent/x.npy"), doctest::Contains("cannot open"), std::runtime_error);
  CHECK_THROWS_WITH_AS(conf::load_family("no_such_family"), doctest::Contains("cases.txt"), std::runtime_error);
}

TEST_CASE("conf::compare catches wrong values, shapes and element types") {
  const auto want = npy::load(write_npy("want", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                                        floats({1, 2, 3, 4})));
  nax::Array<float, a, b> same({2, 2}, {1, 2, 3, 4});
  CHECK(conf::compare(want, same).empty());
  nax::Array<float, a, b> close({2, 2}, {1, 2, 3, 4.00003f});  // 7.6e-6 relative: within float32's 1e-5
  CHECK(conf::compare(want, close).empty());
  nax::Array<float, a, b> off({2, 2}, {1, 2, 3, 4.0001f});
  CHECK(conf::compare(want, off).find("element 3") != std::string::npos);
  CHECK(!conf::compare(want, close, 0.0, true).empty());  // bit for bit
  nax::Array<float, a, b> transposed_shape({1, 4}, {1, 2, 3, 4});
  CHECK(conf::compare(want, transposed_shape).find("shape") != std::string::npos);
  nax::Array<double, a, b> wider({2, 2}, {1, 2, 3, 4});
  CHECK(conf::compare(want, wider).find("dtype") != std::string::npos);
  nax::Array<std::int32_t, a, b> ints({2, 2}, {1, 2, 3, 4});
  CHECK(conf::compare(want, ints).find("dtype") != std::string::npos);
  // NaN equals NaN only; infinities must be equal.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const auto special = npy::load(write_npy("special", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                           floats({nan, inf})));
  CHECK(conf::compare(special, nax::Array<float, a>({2}, {nan, inf})).empty());
  CHECK(!conf::compare(special, nax::Array<float, a>({2}, {1.f, inf})).empty());
  CHECK(!conf::compare(special, nax::Array<float, a>({2}, {nan, -inf})).empty());
  // pmap replicas: every copy must match.
  const auto reps = npy::load(write_npy("reps", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                                        std::string("\1\0\0\0\2\0\0\0\1\0\0\0\3\0\0\0", 16)));
  nax::Array<std::int32_t, b> one({2}, {1, 2});
  CHECK(conf::compare(reps, one, -1, false, 2).find("replica 1") != std::string::npos);
}
