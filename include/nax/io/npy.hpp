// nax::io::save_npy and nax::io::load_npy: one array to and from numpy's .npy format, so that
// numpy (np.save / np.load) and nax exchange data. The file's axes are the array's in its
// declared order, row-major; a .npy file has no axis names, so load_npy is told them.
// save writes a temporary file beside the target and renames it: a reader never sees half a
// file. load reads versions 1.0, 2.0 and 3.0, either byte order and Fortran order, and raises
// nax::io_error for anything else than was asked for (dtype, rank, a truncated or corrupt
// file), naming the file, what it found and what was expected. io layer: core/ and the host
// backend's evaluation (save of an expression).
#pragma once
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "../backend/host/evaluate.hpp"
#include "../core/array.hpp"
#include "npy_format.hpp"

namespace nax::io {
namespace detail {

inline std::string errno_text() { return std::strerror(errno); }

template <class... As>
std::string axis_list_text() {
  std::string t;
  ((t += (t.empty() ? "" : ", ") + std::string(axis_name<As>())), ...);
  return "(" + t + ")";
}

// Reverses the bytes of each of n elements of size s in place.
inline void swap_bytes(char* p, std::size_t n, std::size_t s) {
  for (std::size_t i = 0; i != n; ++i) std::reverse(p + i * s, p + (i + 1) * s);
}

// A name beside path, unique within this process and likely across processes.
inline std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned long> counter{0};
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  return path.string() + ".tmp-" + std::to_string(stamp) + "-" + std::to_string(counter++);
}

// Writes header and data to path through a temporary file and a rename.
inline void write_whole_file(const std::filesystem::path& path, const std::string& header, const char* data,
                             std::size_t bytes) {
  const auto tmp = temporary_beside(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw io_error("nax::io: cannot create " + tmp.string() + " to write " + path.string() + ": " + errno_text());
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    if (bytes) out.write(data, static_cast<std::streamsize>(bytes));
    out.close();
    if (!out) {
      const std::string why = errno_text();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw io_error("nax::io: writing " + std::to_string(header.size() + bytes) + " bytes to " + path.string() +
                     " failed: " + why);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw io_error("nax::io: cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  }
}

}  // namespace detail

// Saves a host array (or a view, or an expression, evaluated first) as path: its axes in
// declared order, row-major, in this machine's byte order.
template <class T, class... As>
void save_npy(const std::filesystem::path& path, const Array<T, As...>& a) {
  static_assert(detail::require_npy_element<T>::value);
  std::vector<index_t> shape(a.extents().begin(), a.extents().end());
  const std::string header = detail::format_header(detail::dtype_of<T>(), shape);
  detail::write_whole_file(path, header, reinterpret_cast<const char*>(a.data()),
                           static_cast<std::size_t>(a.size()) * sizeof(T));
}
template <class X>
void save_npy(const std::filesystem::path& path, const X& x) {
  using E = decltype(nax::detail::as_expr(x));
  save_npy(path, typename nax::detail::eval_array<E>::type(nax::detail::as_expr(x)));
}

// Loads path into an Array<T, As...>: the file's dtype must be T's (either byte order) and
// its rank the number of As; the extents are the file's shape, in order.
template <class T, class... As>
Array<T, As...> load_npy(const std::filesystem::path& path) {
  static_assert(detail::require_npy_element<T>::value);
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error("nax::io: cannot open " + file + ": " + detail::errno_text());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw io_error("nax::io: reading " + file + " failed: " + detail::errno_text());
  const detail::npy_header h = detail::parse_header(bytes, file);

  const std::string want = detail::dtype_of<T>();
  const bool same_kind = h.kind == want[1] && h.item_size == sizeof(T);
  if (!same_kind)
    throw io_error("nax::io: " + file + " holds dtype '" + h.descr + "', but load_npy<" + want.substr(1) + "> expects '" +
                   want + "' (either byte order)");
  if (h.shape.size() != sizeof...(As))
    throw io_error("nax::io: " + file + " holds shape " + detail::shape_text(h.shape) + " (" +
                   std::to_string(h.shape.size()) + " axes), but load_npy was given " + std::to_string(sizeof...(As)) +
                   " axes " + detail::axis_list_text<As...>());

  std::array<index_t, sizeof...(As)> extents{};
  index_t count = 1;
  for (std::size_t k = 0; k != sizeof...(As); ++k) {
    extents[k] = h.shape[k];
    if (extents[k] != 0 && count > std::numeric_limits<index_t>::max() / index_t(sizeof(T)) / extents[k])
      throw io_error("nax::io: " + file + ": shape " + detail::shape_text(h.shape) + " of '" + h.descr +
                     "' overflows a 64-bit byte count");
    count *= extents[k];
  }
  const std::size_t need = static_cast<std::size_t>(count) * sizeof(T);
  const std::size_t have = bytes.size() - h.data_offset;
  if (have != need)
    throw io_error("nax::io: " + file + " holds " + std::to_string(have) + " bytes of data, but its shape " +
                   detail::shape_text(h.shape) + " of '" + h.descr + "' needs " + std::to_string(need) +
                   (have < need ? " (the file is truncated)" : " (the file has bytes after its data)"));

  char* data = bytes.data() + h.data_offset;
  if (sizeof(T) > 1 && h.order != '|' && h.order != detail::native_order)
    detail::swap_bytes(data, static_cast<std::size_t>(count), sizeof(T));

  Array<T, As...> out(nax::detail::no_fill, extents);
  auto element = [&](std::size_t i) {
    T v;
    if constexpr (std::is_same_v<T, bool>) v = data[i] != 0;  // (a byte that is not 0 or 1 is still a bool)
    else std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    return v;
  };
  if (!h.fortran_order || sizeof...(As) < 2) {
    for (index_t i = 0; i != count; ++i) out.data()[i] = element(static_cast<std::size_t>(i));
  } else {
    // Column-major in the file: walk the row-major output, keeping the file offset.
    std::array<index_t, sizeof...(As)> index{}, fstride{};
    index_t s = 1;
    for (std::size_t k = 0; k != sizeof...(As); ++k) fstride[k] = s, s *= extents[k];
    index_t offset = 0;
    for (index_t i = 0; i != count; ++i) {
      out.data()[i] = element(static_cast<std::size_t>(offset));
      for (std::size_t k = sizeof...(As); k-- != 0;) {
        if (++index[k] < extents[k]) {
          offset += fstride[k];
          break;
        }
        offset -= (extents[k] - 1) * fstride[k];
        index[k] = 0;
      }
    }
  }
  return out;
}

}  // namespace nax::io
