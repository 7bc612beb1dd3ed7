// numpy's .npy header (format versions 1.0, 2.0 and 3.0): the dtype string of an element
// type, and the header written and parsed as numpy does (NEP 1, numpy/lib/format.py). Only the
// three keys numpy writes are read: 'descr', 'fortran_order', 'shape'. io layer: includes
// only core/.
#pragma once
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/config.hpp"
#include "../core/errors.hpp"

namespace nax::io::detail {

template <class T>
inline constexpr bool npy_element_v =
    std::is_same_v<T, bool> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    (std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));

template <class T>
struct require_npy_element {
  static_assert(npy_element_v<T>,
                "nax::io: .npy files hold bool, integers of 1, 2, 4 or 8 bytes, float or double; the element type T "
                "is none of these (long double has no portable .npy dtype)");
  static constexpr bool value = true;
};

// The byte order numpy writes for multi-byte elements of this machine.
inline constexpr char native_order = std::endian::native == std::endian::little ? '<' : '>';

// numpy's dtype string of T: '<f4', '<i8', '|u1', '|b1', ...
template <class T>
std::string dtype_of() {
  const char kind = std::is_same_v<T, bool> ? 'b' : std::is_floating_point_v<T> ? 'f' : std::is_signed_v<T> ? 'i' : 'u';
  return std::string(1, sizeof(T) == 1 ? '|' : native_order) + kind + std::to_string(sizeof(T));
}

// A parsed header.
struct npy_header {
  char order = '|';   // '<', '>' or '|' (one byte: no order)
  char kind = '?';    // 'f', 'i', 'u', 'b', or another of numpy's kinds
  std::size_t item_size = 0;
  std::string descr;  // as written in the file
  bool fortran_order = false;
  std::vector<index_t> shape;
  std::size_t data_offset = 0;  // where the data begin
};

inline std::string shape_text(const std::vector<index_t>& shape) {
  std::string t = "(";
  for (std::size_t k = 0; k != shape.size(); ++k) t += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) t += ",";
  return t + ")";
}

// The header as numpy writes it: the dict, padded with spaces and a newline so that the data
// begin at a multiple of 64 bytes; version 1.0 while its length fits 16 bits, else 2.0.
inline std::string format_header(const std::string& descr, const std::vector<index_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  auto padded = [&](std::size_t prefix) { return (prefix + dict.size() + 1 + 63) / 64 * 64; };
  const bool v2 = padded(10) - 10 > 65535;  // (1.0's length field, the padded header's, is 16 bits)
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = padded(prefix);
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += char(v2 ? 2 : 1);
  out += char(0);
  const std::size_t n = dict.size();
  for (std::size_t b = 0; b != (v2 ? 4u : 2u); ++b) out += char((n >> (8 * b)) & 0xff);
  return out + dict;
}

class header_parser {
 public:
  header_parser(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  npy_header parse() {
    npy_header h;
    bool have_descr = false, have_order = false, have_shape = false;
    skip();
    expect('{');
    for (;;) {
      skip();
      if (peek() == '}') break;
      const std::string key = string_literal();
      skip();
      expect(':');
      skip();
      if (key == "descr") {
        if (peek() == '[') fail("a structured dtype (a list of fields), which nax does not read");
        h.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        fail("an unknown key '" + key + "'");
      }
      skip();
      if (peek() == ',') ++at_;
    }
    if (!have_descr || !have_order || !have_shape) fail("no 'descr', 'fortran_order' or 'shape' key");
    parse_descr(h);
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw io_error("nax::io: " + file_ + ": the .npy header holds " + what + " (header: " + s_ + ")");
  }
  char peek() const {
    if (at_ >= s_.size()) fail("too few characters: it ends early");
    return s_[at_];
  }
  void skip() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\t' || s_[at_] == '\r')) ++at_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("'") + s_[at_] + "' where '" + c + "' belongs");
    ++at_;
  }
  std::string string_literal() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("a key or value that is not a string");
    const std::size_t end = s_.find(q, at_ + 1);
    if (end == std::string::npos) fail("an unterminated string");
    std::string v = s_.substr(at_ + 1, end - at_ - 1);
    at_ = end + 1;
    return v;
  }
  bool boolean() {
    if (s_.compare(at_, 4, "True") == 0) return at_ += 4, true;
    if (s_.compare(at_, 5, "False") == 0) return at_ += 5, false;
    fail("a 'fortran_order' that is neither True nor False");
  }
  std::vector<index_t> tuple() {
    std::vector<index_t> v;
    expect('(');
    for (;;) {
      skip();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("a shape that is not a tuple of non-negative integers");
      index_t n = 0;
      while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') {
        const index_t digit = s_[at_++] - '0';
        if (n > (std::numeric_limits<index_t>::max() - digit) / 10) fail("an extent that overflows a 64-bit index");
        n = n * 10 + digit;
      }
      if (at_ < s_.size() && s_[at_] == 'L') ++at_;  // (Python 2's long literals)
      v.push_back(n);
      skip();
      if (peek() == ',') ++at_;
      else if (peek() != ')') fail("a shape that is not a tuple of non-negative integers");
    }
    ++at_;
    return v;
  }
  void parse_descr(npy_header& h) const {
    const std::string& d = h.descr;
    if (d.size() < 3 || (d[0] != '<' && d[0] != '>' && d[0] != '|' && d[0] != '='))
      fail("the dtype '" + d + "', which nax does not read");
    h.order = d[0] == '=' ? native_order : d[0];
    h.kind = d[1];
    std::size_t size = 0;
    for (std::size_t k = 2; k != d.size(); ++k) {
      if (d[k] < '0' || d[k] > '9' || size > 1024) fail("the dtype '" + d + "', which nax does not read");
      size = size * 10 + std::size_t(d[k] - '0');
    }
    h.item_size = size;
  }

  const std::string& s_;
  const std::string& file_;
  std::size_t at_ = 0;
};

// How many bytes of a .npy file its header takes at most (all of them when the prefix is cut).
inline std::size_t header_prefix_limit(std::string_view bytes) {
  if (bytes.size() < 12 || bytes.compare(0, 6, "\x93NUMPY") != 0) return bytes.size();
  const std::size_t width = static_cast<unsigned char>(bytes[6]) == 1 ? 2 : 4;
  std::size_t length = 0;
  for (std::size_t b = 0; b != width; ++b) length |= std::size_t(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
  return 8 + width + length;
}

// Parses the bytes that begin a .npy file (as many as were read: at least the prefix and the
// header, else io_error).
inline npy_header parse_header(const std::string& bytes, const std::string& file) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw io_error("nax::io: " + file + " is not a .npy file (it does not begin with \\x93NUMPY)");
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    throw io_error("nax::io: " + file + ": .npy format version " + std::to_string(major) + "." +
                   std::to_string(static_cast<unsigned char>(bytes[7])) + ", which nax does not read (1.0, 2.0, 3.0)");
  const std::size_t width = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + width) throw io_error("nax::io: " + file + " is truncated inside its .npy header");
  std::size_t length = 0;
  for (std::size_t b = 0; b != width; ++b) length |= std::size_t(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
  const std::size_t begin = 8 + width;
  if (bytes.size() < begin + length)
    throw io_error("nax::io: " + file + " is truncated inside its .npy header (the header says " +
                   std::to_string(length) + " bytes, the file holds " + std::to_string(bytes.size() - begin) + ")");
  const std::string text = bytes.substr(begin, length);
  npy_header h = header_parser(text, file).parse();
  h.data_offset = begin + length;
  return h;
}

}  // namespace nax::io::detail
