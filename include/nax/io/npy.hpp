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
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#if __has_include(<sys/mman.h>) && __has_include(<unistd.h>)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define NAX_IO_HAVE_MMAP 1
#else
#define NAX_IO_HAVE_MMAP 0
#endif

#include "../backend/host/evaluate.hpp"
#include "../core/array.hpp"
#include "npy_format.hpp"

namespace nax::io {
namespace detail {

inline std::string errno_text() { return std::strerror(errno); }

// "(a, b, c)": names in messages.
inline std::string list_text(const std::vector<std::string>& names) {
  std::string t;
  for (const auto& n : names) t += (t.empty() ? "" : ", ") + n;
  return "(" + t + ")";
}
template <class... As>
std::vector<std::string> axis_names() {
  return {std::string(axis_name<As>())...};
}

// A name beside path, unique within this process and likely across processes.
inline std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned long> counter{0};
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  return path.string() + ".tmp-" + std::to_string(stamp) + "-" + std::to_string(counter++);
}

// Calls write(out) on a stream to a temporary file beside path, then renames it to path: a
// reader never sees half a file. Any exception, or a failed write, removes the temporary.
template <class Write>
void write_atomically(const std::filesystem::path& path, Write&& write) {
  const auto tmp = temporary_beside(path);
  auto discard = [&] {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw io_error("nax::io: cannot create " + tmp.string() + " to write " + path.string() + ": " + errno_text());
    try {
      write(out);
    } catch (...) {
      out.close();
      discard();
      throw;
    }
    const auto written = static_cast<std::streamoff>(out.tellp());
    out.close();
    if (!out) {
      const std::string why = errno_text();
      discard();
      throw io_error("nax::io: writing " + path.string() + " failed after " + std::to_string(written) + " bytes: " + why);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    discard();
    throw io_error("nax::io: cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  }
}

inline void write_bytes(std::ostream& out, std::string_view bytes) {
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace detail

namespace detail {

// The .npy header of a host array; its elements, row-major, follow it in the file (npy_body).
template <class T, class... As>
std::string npy_header_of(const Array<T, As...>& a) {
  static_assert(require_npy_element<T>::value);
  std::vector<index_t> shape(a.extents().begin(), a.extents().end());
  return format_header(dtype_of<T>(), shape);
}
template <class T, class... As>
std::string_view npy_body(const Array<T, As...>& a) {
  return {reinterpret_cast<const char*>(a.data()), static_cast<std::size_t>(a.size()) * sizeof(T)};
}

template <std::size_t N>
index_t row_major_stride(const std::array<index_t, N>& extents, std::size_t k) {
  index_t s = 1;
  for (std::size_t j = k + 1; j < N; ++j) s *= extents[j];
  return s;
}

// Asks the kernel to back a fresh, still untouched buffer of n bytes with 2 MiB pages where
// it can (transparent huge pages in "madvise" mode, Linux's default): each leaf of a checkpoint
// is copied into a new array, and its first touch otherwise takes a page fault per 4 KiB
// (measured: the faults and their page clearing were 30% of loading a 1 GiB checkpoint, the
// copy itself 4%). Only the whole 2 MiB pages inside the buffer; advice, so a refusal is ignored.
inline void prefer_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) {
#if NAX_IO_HAVE_MMAP && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  if (n < 2 * huge) return;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(huge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// The array a .npy file (its bytes, named `what` in messages) holds, as an Array<T, As...>
// whose axis k is the file's axis from_file[k] (the identity for load_npy; a permutation when
// a checkpoint stored the axes in another order), byte-swapped when the file's order is not
// this machine's.
template <class T, class... As>
Array<T, As...> decode_npy(std::string_view bytes, const std::string& what,
                           const std::array<std::size_t, sizeof...(As)>& from_file) {
  static_assert(require_npy_element<T>::value);
  constexpr std::size_t N = sizeof...(As);
  const npy_header h = parse_header(std::string(bytes.substr(0, std::min<std::size_t>(bytes.size(), header_prefix_limit(bytes)))), what);

  const std::string want = dtype_of<T>();
  if (h.kind != want[1] || h.item_size != sizeof(T))
    throw io_error("nax::io: " + what + " holds dtype '" + h.descr + "', but " + want.substr(1) + " ('" + want +
                   "', either byte order) was asked for");
  if (h.shape.size() != N)
    throw io_error("nax::io: " + what + " holds shape " + shape_text(h.shape) + " (" + std::to_string(h.shape.size()) +
                   " axes), but " + std::to_string(N) + " axes " + list_text(axis_names<As...>()) + " were asked for");

  index_t count = 1;
  for (std::size_t k = 0; k != N; ++k) {
    const index_t e = h.shape[k];
    if (e != 0 && count > std::numeric_limits<index_t>::max() / index_t(sizeof(T)) / e)
      throw io_error("nax::io: " + what + ": shape " + shape_text(h.shape) + " of '" + h.descr +
                     "' overflows a 64-bit byte count");
    count *= e;
  }
  const std::size_t need = static_cast<std::size_t>(count) * sizeof(T);
  const std::size_t have = bytes.size() - h.data_offset;
  if (have != need)
    throw io_error("nax::io: " + what + " holds " + std::to_string(have) + " bytes of data, but its shape " +
                   shape_text(h.shape) + " of '" + h.descr + "' needs " + std::to_string(need) +
                   (have < need ? " (the file is truncated)" : " (the file has bytes after its data)"));

  const char* data = bytes.data() + h.data_offset;
  const bool swap = sizeof(T) > 1 && h.order != '|' && h.order != native_order;

  // The file's strides (row-major, or column-major for Fortran order), read in the output's order.
  std::array<index_t, N> file_stride{}, extents{}, stride{};
  index_t run = 1;
  for (std::size_t j = 0; j != N; ++j) {
    const std::size_t k = h.fortran_order ? j : N - 1 - j;
    file_stride[k] = run;
    run *= h.shape[k];
  }
  for (std::size_t k = 0; k != N; ++k) extents[k] = h.shape[from_file[k]], stride[k] = file_stride[from_file[k]];

  Array<T, As...> out(nax::detail::no_fill, extents);
  prefer_huge_pages(out.data(), need);
  bool in_order = !std::is_same_v<T, bool> && !swap;  // the file's bytes are the array's: one copy
  for (std::size_t k = 0; k != N; ++k) in_order = in_order && (extents[k] <= 1 || stride[k] == row_major_stride(extents, k));
  if (in_order) {
    if (need) std::memcpy(out.data(), data, need);
    return out;
  }
  std::array<index_t, N> index{};
  index_t offset = 0;
  for (index_t i = 0; i != count; ++i) {
    if constexpr (std::is_same_v<T, bool>) out.data()[i] = data[offset] != 0;  // (any non-zero byte is true)
    else std::memcpy(out.data() + i, data + offset * index_t(sizeof(T)), sizeof(T));
    if (swap) {
      char* p = reinterpret_cast<char*>(out.data() + i);
      std::reverse(p, p + sizeof(T));
    }
    for (std::size_t k = N; k-- != 0;) {  // next row-major index of the output
      if (++index[k] < extents[k]) {
        offset += stride[k];
        break;
      }
      offset -= (extents[k] - 1) * stride[k];
      index[k] = 0;
    }
  }
  return out;
}

inline std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw io_error("nax::io: cannot open " + path.string() + ": " + errno_text());
  const std::streamoff size = in.tellg();
  if (size < 0) throw io_error("nax::io: cannot find the size of " + path.string() + ": " + errno_text());
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  in.read(bytes.data(), size);
  if (in.gcount() != size)
    throw io_error("nax::io: reading " + path.string() + " failed after " + std::to_string(in.gcount()) + " of " +
                   std::to_string(size) + " bytes: " + errno_text());
  return bytes;
}

// A file's bytes, read only, for as long as this object lives (it converts to a string_view).
// Mapped with mmap where the system has it, so a 1 GiB checkpoint is not copied into a string
// first (the kernel's copy, and the string's zeroing and page faults: they made reading a
// checkpoint cost more than cp does); the checks of the CRC-32s and each leaf's copy then read
// the page cache itself. Read into a string instead where mapping fails or does not apply (an
// empty file, a pipe, a system without mmap). nax's writers replace a file by a rename, never
// rewrite it in place: a file truncated by another program while it is mapped would stop this
// process with SIGBUS where a read would have raised io_error.
class file_bytes {
 public:
  explicit file_bytes(const std::filesystem::path& path) {
#if NAX_IO_HAVE_MMAP
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw io_error("nax::io: cannot open " + path.string() + ": " + errno_text());
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      // (MAP_POPULATE, mapping every page at once, measured no faster: a fault maps 16 pages.)
      void* m = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (m != MAP_FAILED) map_ = m, size_ = static_cast<std::size_t>(st.st_size);
    }
    ::close(fd);  // (a mapping outlives its descriptor)
    if (map_) return;
#endif
    copy_ = read_whole_file(path);
  }
  file_bytes(const file_bytes&) = delete;
  file_bytes& operator=(const file_bytes&) = delete;
  ~file_bytes() {
#if NAX_IO_HAVE_MMAP
    if (map_) ::munmap(map_, size_);
#endif
  }
  std::string_view view() const {
    return map_ ? std::string_view(static_cast<const char*>(map_), size_) : std::string_view(copy_);
  }
  operator std::string_view() const { return view(); }
  bool mapped() const { return map_ != nullptr; }

 private:
  void* map_ = nullptr;
  std::size_t size_ = 0;
  std::string copy_;  // the bytes, when not mapped
};

template <std::size_t N>
constexpr std::array<std::size_t, N> identity_order() {
  std::array<std::size_t, N> p{};
  for (std::size_t k = 0; k != N; ++k) p[k] = k;
  return p;
}

}  // namespace detail

// Saves a host array (or a view, or an expression, evaluated first) as path: its axes in
// declared order, row-major, in this machine's byte order.
template <class T, class... As>
void save_npy(const std::filesystem::path& path, const Array<T, As...>& a) {
  detail::write_atomically(path, [&](std::ostream& out) {
    detail::write_bytes(out, detail::npy_header_of(a));
    detail::write_bytes(out, detail::npy_body(a));
  });
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
  const detail::file_bytes bytes(path);
  return detail::decode_npy<T, As...>(bytes, path.string(), detail::identity_order<sizeof...(As)>());
}

}  // namespace nax::io
