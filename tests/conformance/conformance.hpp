// Shared by the conformance tests: reads a family's cases (data/<family>/cases.txt and the .npy
// files beside it, written by generate.py), turns inputs into nax arrays, and compares nax's
// results with JAX's. Format: README.md.
#pragma once
#include <doctest/doctest.h>

#include <nax/nax.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "npy.hpp"

#ifndef NAX_TEST_SOURCE_DIR
#error "NAX_TEST_SOURCE_DIR (the tests/ directory) must be defined"
#endif

namespace conf {

using nax::index_t;

// Tolerances of the issue: relative error <= 1e-6 for float64 and <= 1e-5 for float32; exact
// for integers, bools and random bits.
inline constexpr double rtol_f64 = 1e-6;
inline constexpr double rtol_f32 = 1e-5;

struct Case {
  std::string family, name, op;
  std::map<std::string, std::string> params;
  std::vector<npy::Array> in, out;

  const std::string& param(const std::string& key) const {
    auto it = params.find(key);
    if (it == params.end()) throw std::runtime_error("case " + name + " has no parameter '" + key + "'");
    return it->second;
  }
  bool has(const std::string& key) const { return params.count(key) != 0; }
  std::string dtype() const { return has("dtype") ? param("dtype") : ""; }
  double number(const std::string& key) const { return std::stod(param(key)); }
  std::int64_t integer(const std::string& key) const { return std::stoll(param(key)); }
  // "2x3" -> {2, 3}; "5" -> {5}
  std::vector<index_t> shape(const std::string& key = "shape") const {
    std::vector<index_t> s;
    std::stringstream ss(param(key));
    std::string part;
    while (std::getline(ss, part, 'x')) s.push_back(std::stoll(part));
    return s;
  }
};

// Built by appending: g++ 12 warns (-Warray-bounds, a false positive: GCC bug 105329's kind) on
// operator+ of temporaries here.
inline std::string data_dir() {
  std::string dir = NAX_TEST_SOURCE_DIR;
  dir.append("/conformance/data");
  return dir;
}

// Every case of a family, inputs and outputs loaded. Throws on a missing or malformed file.
inline std::vector<Case> load_family(const std::string& family) {
  std::string dir = data_dir();
  dir.append("/").append(family);
  std::ifstream in(dir + "/cases.txt");
  if (!in) throw std::runtime_error("conformance: cannot open " + dir + "/cases.txt");
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    Case c;
    c.family = family;
    ss >> c.name;
    std::string word;
    while (ss >> word) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) throw std::runtime_error("conformance: malformed word '" + word + "' in " + line);
      c.params[word.substr(0, eq)] = word.substr(eq + 1);
    }
    c.op = c.param("op");
    const int nin = std::stoi(c.param("in")), nout = std::stoi(c.param("out"));
    for (int k = 0; k < nin; ++k) c.in.push_back(npy::load(dir + "/" + c.name + ".in" + std::to_string(k) + ".npy"));
    for (int k = 0; k < nout; ++k) c.out.push_back(npy::load(dir + "/" + c.name + ".out" + std::to_string(k) + ".npy"));
    cases.push_back(std::move(c));
  }
  if (cases.empty()) throw std::runtime_error("conformance: no cases in " + dir + "/cases.txt");
  return cases;
}

// An input as a nax array with the given axis names (in the .npy's dimension order). The
// element type must be the file's exactly.
template <class T, class... As>
nax::Array<T, As...> to_array(const npy::Array& a) {
  if (a.shape.size() != sizeof...(As))
    throw std::runtime_error(a.path + ": rank " + std::to_string(a.shape.size()) + ", expected " +
                             std::to_string(sizeof...(As)));
  std::array<index_t, sizeof...(As)> extents{};
  for (std::size_t d = 0; d != extents.size(); ++d) extents[d] = a.shape[d];
  nax::Array<T, As...> x(extents);
  if (a.descr != npy::descr_of<T>()) throw std::runtime_error(a.path + ": holds " + a.descr + ", read as " + npy::descr_of<T>());
  if (!a.bytes.empty()) std::memcpy(static_cast<void*>(x.data()), a.bytes.data(), a.bytes.size());
  return x;
}

template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else return "?";
}

inline std::string show_shape(const std::vector<std::int64_t>& s) {
  std::string r = "(";
  for (std::size_t d = 0; d < s.size(); ++d) r += (d ? ", " : "") + std::to_string(s[d]);
  return r + ")";
}

// Compares n values of nax's result (got, of type T, shape `shape` in the .npy's order) with
// JAX's; returns "" when they agree, else a description of the first disagreement.
//  - element kinds must agree (floating / integer / bool) and floating widths too; integer
//    widths may differ (JAX in x64 mode sums int32 into int64; nax keeps int32);
//  - floating: both NaN, equal infinities, or |got - want| <= rtol * |want| (rtol: float32
//    1e-5, float64 1e-6 unless the case passes a looser one, with its reason, or 0 = exact);
//  - integers, bools: exact. exact_bits: floating values compared bit for bit.
// `replicas` > 1: want has a leading dimension of that extent (JAX's pmap output of a
// replicated value) and every slice of it must equal got.
template <class T>
std::string compare(const npy::Array& want, const T* got, const std::vector<std::int64_t>& shape, double rtol = -1,
                    bool exact_bits = false, std::int64_t replicas = 1) {
  std::vector<std::int64_t> want_shape = shape;
  if (replicas > 1) want_shape.insert(want_shape.begin(), replicas);
  if (want.shape != want_shape)
    return "shape: nax " + show_shape(want_shape) + ", jax " + show_shape(want.shape);
  const std::string wd = want.dtype();
  const bool want_float = wd == "float32" || wd == "float64", want_bool = wd == "bool";
  if (std::is_floating_point_v<T> != want_float || std::is_same_v<T, bool> != want_bool ||
      (want_float && wd != dtype_name<T>()))
    return std::string("dtype: nax ") + dtype_name<T>() + ", jax " + wd;
  if (rtol < 0) rtol = std::is_same_v<T, float> ? rtol_f32 : rtol_f64;
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  for (std::int64_t r = 0; r < replicas; ++r)
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t w = r * n + k;
      bool ok;
      std::ostringstream g, e;
      g.precision(17);
      e.precision(17);
      if constexpr (std::is_floating_point_v<T>) {
        const double a = double(got[k]), b = want.as_double(w);
        if (exact_bits) {
          ok = std::memcmp(&got[k], want.bytes.data() + w * std::int64_t(sizeof(T)), sizeof(T)) == 0;
        } else if (std::isnan(b) || std::isnan(a)) {
          ok = std::isnan(a) && std::isnan(b);
        } else if (std::isinf(b) || std::isinf(a)) {
          ok = a == b;
        } else {
          ok = std::fabs(a - b) <= rtol * std::fabs(b);
        }
        g << a;
        e << b;
      } else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
        ok = std::uint64_t(got[k]) == want.as_uint(w);
        g << std::uint64_t(got[k]);
        e << want.as_uint(w);
      } else {
        ok = std::int64_t(got[k]) == want.as_int(w);
        g << std::int64_t(got[k]);
        e << want.as_int(w);
      }
      if (!ok)
        return "element " + std::to_string(k) + (replicas > 1 ? " of replica " + std::to_string(r) : std::string()) +
               ": nax " + g.str() + ", jax " + e.str() + (rtol > 0 && !exact_bits ? " (rtol " + std::to_string(rtol) + ")" : "");
    }
  return "";
}

// The same for a nax array (its axes must be in the .npy's dimension order).
template <class T, class... As>
std::string compare(const npy::Array& want, const nax::Array<T, As...>& got, double rtol = -1, bool exact_bits = false,
                    std::int64_t replicas = 1) {
  std::vector<std::int64_t> shape;
  for (auto e : got.extents()) shape.push_back(e);
  return compare(want, got.data(), shape, rtol, exact_bits, replicas);
}

// Against JAX's output relative to its largest element: max |nax - jax| <= rtol * max |jax|,
// rtol the suite's (1e-5 float32, 1e-6 float64). For gradients (families tape, and grad's
// float32 MLP): an element is a sum of terms as large as the output's largest elements, so
// its rounding error is set by that scale, not by its own size, and XLA's rounding differs
// from nax's (another summation order, libm). Measured, grad/mlp_tanh_vg_f32_8x6x10x2: element
// 47 of the gradient of w1 is 0.0062, a sum of 8 terms up to 0.23; against float64's value nax
// is 2.3e-5 off relative to it and JAX 7e-7, while over the whole output JAX's largest
// relative error is 1.1e-5 (element 6) and its largest absolute one 5.0e-7 to nax's 2.9e-7.
template <class T, class... As>
std::string compare_scaled(const npy::Array& want_file, const nax::Array<T, As...>& got) {
  const auto want = to_array<T, As...>(want_file);
  if (want.extents() != got.extents()) return "extents differ from JAX's";
  double worst = 0, scale = 0;
  nax::index_t at = 0;
  for (nax::index_t k = 0; k < got.size(); ++k) {
    const double d = std::abs(double(got.data()[k]) - double(want.data()[k]));
    if (!(d <= worst)) worst = d, at = k;  // (a NaN counts as the worst)
    scale = std::max(scale, std::abs(double(want.data()[k])));
  }
  const double rtol = std::is_same_v<T, float> ? rtol_f32 : rtol_f64;
  if (!(worst <= rtol * scale))
    return "element " + std::to_string(at) + ": |nax - jax| " + std::to_string(worst) + " > rtol * max |jax| = " +
           std::to_string(rtol) + " * " + std::to_string(scale);
  return "";
}

// What `run` returns for a case this file does not handle (another file of the family does).
inline std::string skip() { return "skip: another file"; }
// ... and for a case this backend cannot run (an op the CUDA backend lacks, an element type not
// instantiated for it): counted and reported by run_family, never a pass.
inline std::string skip_because(const std::string& why) { return "skip: " + why; }

// Runs every case of a family through `run` (which returns "" or the disagreement, and may
// throw), one CHECK per case; reports the family's pass count and the skip_because counts.
// `select`: only the cases it accepts (a known disagreement with JAX runs in a TEST_CASE of its
// own, marked may_fail).
struct Tally {
  int run = 0, passed = 0;
  std::map<std::string, int> skipped;  // reason -> cases
  int skipped_total() const {
    int n = 0;
    for (const auto& [why, count] : skipped) n += count;
    return n;
  }
};

inline Tally run_family(const std::vector<Case>& cases, const std::function<std::string(const Case&)>& run,
                        const std::string& label, const std::function<bool(const Case&)>& select = {}) {
  Tally t;
  for (const auto& c : cases) {
    if (select && !select(c)) continue;
    std::string result;
    try {
      result = run(c);
    } catch (const std::exception& e) {
      result = std::string("threw: ") + e.what();
    }
    if (result.rfind("skip:", 0) == 0) {
      if (result != skip()) ++t.skipped[result.substr(6)];
      continue;
    }
    ++t.run;
    if (result.empty()) ++t.passed;
    CHECK_MESSAGE(result.empty(), c.family << "/" << c.name << " (op=" << c.op << "): " << result);
  }
  std::string skips;
  for (const auto& [why, count] : t.skipped) skips += "; " + std::to_string(count) + " skipped: " + why;
  MESSAGE(label << ": " << t.passed << " of " << t.run << " cases agree with JAX" << skips);
  return t;
}

// fn(T{}) for the T of Ts... named dt ("float32", ...); a T the backend B does not instantiate
// is skipped with the reason B gives.
template <class B, class... Ts, class F>
std::string by_dtype(const std::string& dt, F fn) {
  std::string result = "unknown dtype " + dt;
  auto try_one = [&](auto t) {
    using T = decltype(t);
    if (dt != dtype_name<T>()) return false;
    if constexpr (B::template instantiates<T>()) result = fn(t);
    else result = skip_because(B::not_instantiated(dtype_name<T>()));
    return true;
  };
  (try_one(Ts{}) || ...);
  return result;
}

}  // namespace conf
