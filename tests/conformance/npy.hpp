// A reader of numpy's .npy files, version 1.0 (and 2.0/3.0 headers), for the conformance data:
// little-endian or single-byte element types, C order, no object arrays. Anything else (a
// Fortran-ordered array, a big-endian or unknown dtype, a truncated file) throws
// std::runtime_error naming the file and the reason.
#pragma once
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace npy {

struct Array {
  std::string path;
  std::string descr;              // numpy's dtype.str: "<f4", "<f8", "<i4", "<i8", "<u4", "<u8", "|b1"
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;  // size() * item_size bytes, C order

  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  // "float32", "float64", "int32", "int64", "uint32", "uint64", "bool"
  std::string dtype() const;

  // The elements as T; T must be the file's element type exactly.
  template <class T>
  std::vector<T> values() const;
  // Element n converted to double / to int64 (any element type).
  double as_double(std::int64_t n) const;
  std::int64_t as_int(std::int64_t n) const;
  std::uint64_t as_uint(std::int64_t n) const;
};

[[noreturn]] inline void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error("npy: " + path + ": " + why);
}

inline std::string Array::dtype() const {
  if (descr == "<f4") return "float32";
  if (descr == "<f8") return "float64";
  if (descr == "<i4") return "int32";
  if (descr == "<i8") return "int64";
  if (descr == "<u4") return "uint32";
  if (descr == "<u8") return "uint64";
  if (descr == "|b1") return "bool";
  fail(path, "unsupported dtype '" + descr + "'");
}

template <class T>
constexpr const char* descr_of() {
  if constexpr (std::is_same_v<T, float>) return "<f4";
  else if constexpr (std::is_same_v<T, double>) return "<f8";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "<i4";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "<i8";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "<u4";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "<u8";
  else if constexpr (std::is_same_v<T, bool>) return "|b1";
  else static_assert(sizeof(T) == 0, "npy: unsupported element type");
}

template <class T>
std::vector<T> Array::values() const {
  if (descr != descr_of<T>()) fail(path, std::string("holds ") + descr + ", read as " + descr_of<T>());
  std::vector<T> out(static_cast<std::size_t>(size()));
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t n = 0; n < out.size(); ++n) out[n] = bytes[n] != 0;
  } else if (!out.empty()) {
    std::memcpy(static_cast<void*>(out.data()), bytes.data(), bytes.size());
  }
  return out;
}

inline double Array::as_double(std::int64_t n) const {
  const auto* p = bytes.data();
  auto get = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p + n * sizeof(v), sizeof(v));
    return v;
  };
  if (descr == "<f4") return get(float{});
  if (descr == "<f8") return get(double{});
  if (descr == "<i4") return get(std::int32_t{});
  if (descr == "<i8") return double(get(std::int64_t{}));
  if (descr == "<u4") return get(std::uint32_t{});
  if (descr == "<u8") return double(get(std::uint64_t{}));
  if (descr == "|b1") return p[n] ? 1.0 : 0.0;
  fail(path, "unsupported dtype '" + descr + "'");
}

inline std::int64_t Array::as_int(std::int64_t n) const {
  if (descr == "<i8") {
    std::int64_t v;
    std::memcpy(&v, bytes.data() + n * 8, 8);
    return v;
  }
  if (descr == "<u8") return static_cast<std::int64_t>(as_uint(n));
  if (descr == "<f4" || descr == "<f8") fail(path, "floating data read as an integer");
  return static_cast<std::int64_t>(as_double(n));  // int32, uint32, bool: exact in a double
}

inline std::uint64_t Array::as_uint(std::int64_t n) const {
  if (descr == "<u8") {
    std::uint64_t v;
    std::memcpy(&v, bytes.data() + n * 8, 8);
    return v;
  }
  return static_cast<std::uint64_t>(as_int(n));
}

namespace detail {
// The value of 'key' in the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
inline std::string header_value(const std::string& path, const std::string& header, const std::string& key) {
  const auto at = header.find("'" + key + "'");
  if (at == std::string::npos) fail(path, "header has no '" + key + "': " + header);
  auto p = header.find(':', at);
  if (p == std::string::npos) fail(path, "malformed header: " + header);
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  std::size_t end;
  if (header[p] == '\'') {
    end = header.find('\'', p + 1);
    if (end == std::string::npos) fail(path, "malformed header: " + header);
    return header.substr(p + 1, end - p - 1);
  }
  if (header[p] == '(') {
    end = header.find(')', p);
    if (end == std::string::npos) fail(path, "malformed header: " + header);
    return header.substr(p, end - p + 1);
  }
  end = header.find_first_of(",}", p);
  return header.substr(p, end - p);
}
}  // namespace detail

inline Array load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open");
  std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (file.size() < 10 || std::memcmp(file.data(), magic, 6) != 0) fail(path, "not a .npy file");
  const int major = file[6];
  std::size_t header_len, start;
  if (major == 1) {
    header_len = file[8] | (std::size_t(file[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) fail(path, "truncated header");
    header_len = file[8] | (std::size_t(file[9]) << 8) | (std::size_t(file[10]) << 16) | (std::size_t(file[11]) << 24);
    start = 12;
  } else {
    fail(path, "unsupported .npy version " + std::to_string(major));
  }
  if (file.size() < start + header_len) fail(path, "truncated header");
  const std::string header(file.begin() + static_cast<std::ptrdiff_t>(start),
                           file.begin() + static_cast<std::ptrdiff_t>(start + header_len));
  Array a;
  a.path = path;
  a.descr = detail::header_value(path, header, "descr");
  if (detail::header_value(path, header, "fortran_order") != "False") fail(path, "Fortran order is not supported");
  const std::string shape = detail::header_value(path, header, "shape");  // "(3, 4)", "(5,)", "()"
  std::string number;
  for (char c : shape.substr(1)) {
    if (c >= '0' && c <= '9') number += c;
    else if (c == ',' || c == ')') {
      if (!number.empty()) a.shape.push_back(std::stoll(number));
      number.clear();
    } else if (c != ' ' && c != 'L') {
      fail(path, "malformed shape " + shape);
    }
  }
  (void)a.dtype();  // rejects unsupported and big-endian types
  const std::size_t item = a.descr == "|b1" ? 1 : std::size_t(a.descr[2] - '0');
  const std::size_t want = static_cast<std::size_t>(a.size()) * item;
  const std::size_t data = start + header_len;
  if (file.size() != data + want)
    fail(path, "data has " + std::to_string(file.size() - data) + " bytes, shape and dtype need " + std::to_string(want));
  a.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(data), file.end());
  if (a.descr == "|b1")
    for (auto b : a.bytes)
      if (b > 1) fail(path, "bool element is not 0 or 1");
  return a;
}

}  // namespace npy
