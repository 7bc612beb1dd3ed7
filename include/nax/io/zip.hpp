// The ZIP container of numpy's .npz files (PKWARE APPNOTE 6.3): entries stored uncompressed,
// as np.savez writes them. zip_writer writes an archive to a stream (npz.hpp: a temporary file,
// then a rename); read_zip lists an archive's entries from its central directory, ZIP64 records
// included (np.savez marks every entry ZIP64), and checks each entry's CRC-32. Compressed
// entries (np.savez_compressed) raise io_error: nax reads stored entries only. io layer.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#include <immintrin.h>
#endif

#include "../core/errors.hpp"

namespace nax::io::detail {

// CRC-32 (ZIP's polynomial, reflected 0xEDB88320), slicing by 8: eight table lookups per 8
// bytes (about 1 byte per cycle; the byte-at-a-time loop took 9 of the 10 s of saving a 1 GiB
// checkpoint). The fallback of crc32 below, and the reference its tests compare against. crc is
// the value of the bytes before these (0 to begin), so data may come in pieces.
inline std::uint32_t crc32_table(std::string_view bytes, std::uint32_t crc = 0) {
  static const auto tables = [] {
    std::array<std::array<std::uint32_t, 256>, 8> t{};
    for (std::uint32_t n = 0; n != 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k != 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][n] = c;
    }
    for (std::uint32_t n = 0; n != 256; ++n)
      for (std::size_t k = 1; k != 8; ++k) t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xFF];
    return t;
  }();
  std::uint32_t c = ~crc;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  for (; n >= 8; n -= 8, p += 8) {
    const std::uint32_t lo = c ^ (std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
                                  std::uint32_t(p[3]) << 24);
    const std::uint32_t hi = std::uint32_t(p[4]) | std::uint32_t(p[5]) << 8 | std::uint32_t(p[6]) << 16 |
                             std::uint32_t(p[7]) << 24;
    c = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^ tables[4][lo >> 24] ^
        tables[3][hi & 0xFF] ^ tables[2][(hi >> 8) & 0xFF] ^ tables[1][(hi >> 16) & 0xFF] ^ tables[0][hi >> 24];
  }
  for (; n != 0; --n, ++p) c = tables[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define NAX_IO_CRC32_CLMUL 1

// Whether this processor has the carry-less multiply (PCLMULQDQ) and SSE4.1 that
// crc32_clmul_blocks needs: asked once, at run time, so the library stays built for any x86-64.
inline bool crc32_clmul_supported() {
  static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return yes;
}

// CRC-32 of n bytes (n >= 64, a multiple of 16) by folding with the carry-less multiply, as
// zlib (Chromium's crc32_simd.c) and the Linux kernel do after Intel's paper "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ" (2009): four 128-bit lanes each fold 64
// bytes ahead per step (8 multiplies per 64 bytes, independent of one another, where the table
// walks a chain of lookups), then the lanes fold into one, then 128 -> 64 -> 32 bits by a
// Barrett reduction. The constants are x^k mod P (bit-reflected) for the fold distances, from
// the paper's end. c is the inverted running value (~crc), as the table loop keeps it; the
// result is too. About 10x the table's speed on data in cache; on a checkpoint, memory's.
// (Helpers are functions, not lambdas: a lambda does not inherit the target attribute.)
__attribute__((target("pclmul,sse4.1"))) inline __m128i crc32_load(const unsigned char* q) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
}
// x times x^k (its two 64-bit halves by k's two constants), xored onto the next data.
__attribute__((target("pclmul,sse4.1"))) inline __m128i crc32_fold(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}
__attribute__((target("pclmul,sse4.1"))) inline std::uint32_t crc32_clmul_blocks(const unsigned char* p, std::size_t n,
                                                                                  std::uint32_t c) {
  const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);  // fold by 512 bits
  const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);  // fold by 128 bits
  const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);               // 64 -> 32 bits
  const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);  // P(x) and mu, for Barrett
  const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
  __m128i x1 = _mm_xor_si128(crc32_load(p), _mm_cvtsi32_si128(static_cast<int>(c)));
  __m128i x2 = crc32_load(p + 16), x3 = crc32_load(p + 32), x4 = crc32_load(p + 48);
  p += 64, n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x1 = crc32_fold(x1, k1k2, crc32_load(p));
    x2 = crc32_fold(x2, k1k2, crc32_load(p + 16));
    x3 = crc32_fold(x3, k1k2, crc32_load(p + 32));
    x4 = crc32_fold(x4, k1k2, crc32_load(p + 48));
  }
  // Four lanes into one, then the remaining 16-byte blocks.
  x1 = crc32_fold(x1, k3k4, x2);
  x1 = crc32_fold(x1, k3k4, x3);
  x1 = crc32_fold(x1, k3k4, x4);
  for (; n >= 16; p += 16, n -= 16) x1 = crc32_fold(x1, k3k4, crc32_load(p));

  // 128 -> 64 bits.
  __m128i x = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(x1, k3k4, 0x10));
  // 64 -> 32 bits (in the 64-bit lane).
  x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), k5, 0x00));
  // Barrett reduction to the 32-bit remainder.
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), poly, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), poly, 0x00);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_xor_si128(x, t), 1));
}

// crc32 by folding (crc32_clmul_supported() must hold): whole 16-byte blocks by the multiply,
// the last 0-15 bytes (and inputs under 64 bytes) by the table.
inline std::uint32_t crc32_clmul(std::string_view bytes, std::uint32_t crc = 0) {
  if (bytes.size() < 64) return crc32_table(bytes, crc);
  const std::size_t blocks = bytes.size() & ~std::size_t(15);
  crc = ~crc32_clmul_blocks(reinterpret_cast<const unsigned char*>(bytes.data()), blocks, ~crc);
  return crc32_table(bytes.substr(blocks), crc);
}
#else
inline bool crc32_clmul_supported() { return false; }
#endif

// CRC-32 of ZIP entries: by the carry-less multiply where the processor has it, else by the
// table; both give the same bits (tests/io/crc_test.cpp). Measured on 64 MiB here (-O3): the
// table 1.7 GB/s, the multiply 10.5 (memcpy: 6.9), so a 1 GiB checkpoint's CRCs take 0.1 s,
// not 0.6.
inline std::uint32_t crc32(std::string_view bytes, std::uint32_t crc = 0) {
#ifdef NAX_IO_CRC32_CLMUL
  if (crc32_clmul_supported()) return crc32_clmul(bytes, crc);
#endif
  return crc32_table(bytes, crc);
}

inline void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int b = 0; b != bytes; ++b) out += char((v >> (8 * b)) & 0xFF);
}
inline std::uint64_t get_le(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int b = 0; b != bytes; ++b) v |= std::uint64_t(static_cast<unsigned char>(in[at + std::size_t(b)])) << (8 * b);
  return v;
}

// An archive of stored entries, written to a stream as they come (a big entry's CRC-32 is
// computed as its data are written and its local header patched after, where the stream can
// seek back; see add). Sizes and offsets must fit 32 bits
// (4 GiB): nax does not write ZIP64 yet, and says so instead of writing a damaged archive.
class zip_writer {
 public:
  zip_writer(std::ostream& out, std::string file) : out_(out), file_(std::move(file)) {}

  // An entry whose data are head then body (a .npy header and the array's bytes).
  void add(const std::string& name, std::string_view head, std::string_view body = {}) {
    const std::size_t size = head.size() + body.size();
    check_fits(size, "entry '" + name + "'");
    check_fits(offset_, "the archive before '" + name + "'");
    // The CRC-32 goes in the local header, before the data. Where the stream can seek back (a
    // file) it is computed piece by piece as the data are written, and the header patched after:
    // each piece is read from memory once, by the CRC, and written from the cache, where a CRC
    // pass first read every leaf twice. Elsewhere (and for small entries) it is computed first.
    const std::streampos header_at = body.size() >= fold_min ? out_.tellp() : std::streampos(-1);
    const bool fold = header_at != std::streampos(-1);
    std::uint32_t crc = fold ? 0 : crc32(body, crc32(head));
    const std::size_t at = offset_;  // where its local header begins
    std::string local;
    put_le(local, 0x04034b50, 4);  // local file header
    put_le(local, 20, 2);          // version needed: 2.0
    put_le(local, 0, 2);           // flags
    put_le(local, 0, 2);           // method: stored
    put_le(local, 0, 2);           // time
    put_le(local, 0x21, 2);        // date: 1980-01-01
    put_le(local, crc, 4);
    put_le(local, size, 4);
    put_le(local, size, 4);
    put_le(local, name.size(), 2);
    put_le(local, 0, 2);  // extra
    local += name;
    write(local);
    write(head);
    if (fold) {
      crc = crc32(head);
      for (std::size_t from = 0; from < body.size(); from += fold_piece) {
        const std::string_view piece = body.substr(from, fold_piece);
        crc = crc32(piece, crc);
        write(piece);
      }
      const std::streampos end = out_.tellp();
      std::string crc_bytes;
      put_le(crc_bytes, crc, 4);
      out_.seekp(header_at + std::streamoff(14));  // the CRC field of the local header
      out_.write(crc_bytes.data(), 4);
      out_.seekp(end);
    } else {
      write(body);
    }

    put_le(central_, 0x02014b50, 4);  // central directory header
    put_le(central_, 20, 2);          // made by
    put_le(central_, 20, 2);          // needed
    put_le(central_, 0, 2);
    put_le(central_, 0, 2);
    put_le(central_, 0, 2);
    put_le(central_, 0x21, 2);
    put_le(central_, crc, 4);
    put_le(central_, size, 4);
    put_le(central_, size, 4);
    put_le(central_, name.size(), 2);
    put_le(central_, 0, 2);  // extra
    put_le(central_, 0, 2);  // comment
    put_le(central_, 0, 2);  // disk
    put_le(central_, 0, 2);  // internal attributes
    put_le(central_, 0, 4);  // external attributes
    put_le(central_, at, 4);
    central_ += name;
    ++count_;
  }

  void finish() {
    if (count_ > 0xFFFF)
      throw io_error("nax::io: " + file_ + ": " + std::to_string(count_) +
                     " entries, more than a ZIP archive without ZIP64 holds (65535); nax does not write ZIP64 yet");
    check_fits(offset_ + central_.size(), "the archive");
    std::string end = central_;
    put_le(end, 0x06054b50, 4);  // end of central directory
    put_le(end, 0, 2);
    put_le(end, 0, 2);
    put_le(end, count_, 2);
    put_le(end, count_, 2);
    put_le(end, central_.size(), 4);
    put_le(end, offset_, 4);
    put_le(end, 0, 2);
    write(end);
  }

 private:
  void write(std::string_view bytes) {
    out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    offset_ += bytes.size();
  }
  void check_fits(std::size_t n, const std::string& what) const {
    if (n >= 0xFFFFFFFFu)
      throw io_error("nax::io: " + file_ + ": " + what + " is " + std::to_string(n) +
                     " bytes, 4 GiB or more, which needs ZIP64; nax does not write ZIP64 yet");
  }
  // Entries of fold_min bytes or more have their CRC-32 computed as they are written, in pieces
  // of fold_piece bytes (a size the L2 cache holds).
  static constexpr std::size_t fold_min = std::size_t(1) << 20, fold_piece = std::size_t(1) << 18;
  std::ostream& out_;
  std::string file_;
  std::string central_;
  std::size_t offset_ = 0, count_ = 0;
};

// An archive's entries by name: each a view into the archive's bytes.
using zip_entries = std::map<std::string, std::string_view>;

class zip_reader {
 public:
  zip_reader(std::string_view bytes, std::string file) : in_(bytes), file_(std::move(file)) {}

  zip_entries entries() const {
    // The end-of-central-directory record: 22 bytes and a comment of at most 65535.
    if (in_.size() < 22) fail("is too short for a ZIP archive (" + std::to_string(in_.size()) + " bytes)");
    std::size_t eocd = std::string_view::npos;
    const std::size_t lowest = in_.size() > 22 + 0xFFFF ? in_.size() - 22 - 0xFFFF : 0;
    for (std::size_t at = in_.size() - 22 + 1; at-- > lowest;)
      if (get_le(in_, at, 4) == 0x06054b50) {
        eocd = at;
        break;
      }
    if (eocd == std::string_view::npos) fail("is not a ZIP archive (no end-of-central-directory record)");
    std::uint64_t count = get_le(in_, eocd + 10, 2);
    std::uint64_t cd_size = get_le(in_, eocd + 12, 4);
    std::uint64_t cd_offset = get_le(in_, eocd + 16, 4);
    if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {  // ZIP64 end record
      if (eocd < 20 || get_le(in_, eocd - 20, 4) != 0x07064b50) fail("lacks the ZIP64 locator its end record calls for");
      const std::uint64_t z = get_le(in_, eocd - 20 + 8, 8);
      need(z, 56, "the ZIP64 end record");
      if (get_le(in_, z, 4) != 0x06064b50) fail("has a damaged ZIP64 end record");
      count = get_le(in_, z + 32, 8);
      cd_size = get_le(in_, z + 40, 8);
      cd_offset = get_le(in_, z + 48, 8);
    }
    need(cd_offset, cd_size, "the central directory");

    zip_entries out;
    std::uint64_t at = cd_offset;
    for (std::uint64_t i = 0; i != count; ++i) {
      need(at, 46, "a central directory header");
      if (get_le(in_, at, 4) != 0x02014b50) fail("has a damaged central directory (entry " + std::to_string(i) + ")");
      const std::uint64_t flags = get_le(in_, at + 8, 2), method = get_le(in_, at + 10, 2);
      const std::uint32_t crc = static_cast<std::uint32_t>(get_le(in_, at + 16, 4));
      std::uint64_t csize = get_le(in_, at + 20, 4), usize = get_le(in_, at + 24, 4);
      const std::uint64_t name_len = get_le(in_, at + 28, 2), extra_len = get_le(in_, at + 30, 2),
                          comment_len = get_le(in_, at + 32, 2);
      std::uint64_t local = get_le(in_, at + 42, 4);
      need(at + 46, name_len + extra_len + comment_len, "a central directory header");
      const std::string name(in_.substr(at + 46, name_len));
      // ZIP64 extended information (0x0001): the fields that read 0xFFFFFFFF, in this order.
      const std::uint64_t extra_end = at + 46 + name_len + extra_len;
      for (std::uint64_t e = at + 46 + name_len; e + 4 <= extra_end;) {
        const std::uint64_t id = get_le(in_, e, 2), len = get_le(in_, e + 2, 2);
        if (e + 4 + len > extra_end) fail("has a damaged extra field in the central header of '" + name + "'");
        std::uint64_t f = e + 4;
        if (id == 1) {
          if (usize == 0xFFFFFFFF && f + 8 <= e + 4 + len) usize = get_le(in_, f, 8), f += 8;
          if (csize == 0xFFFFFFFF && f + 8 <= e + 4 + len) csize = get_le(in_, f, 8), f += 8;
          if (local == 0xFFFFFFFF && f + 8 <= e + 4 + len) local = get_le(in_, f, 8), f += 8;
        }
        e += 4 + len;
      }
      if (method != 0)
        fail("stores entry '" + name + "' compressed (method " + std::to_string(method) +
             "); nax reads stored entries only: write it with np.savez, not np.savez_compressed");
      if (flags & 1) fail("encrypts entry '" + name + "'");
      if (csize != usize) fail("has entry '" + name + "' with different stored and original sizes");
      need(local, 30, "the local header of '" + name + "'");
      if (get_le(in_, local, 4) != 0x04034b50) fail("has a damaged local header for '" + name + "'");
      const std::uint64_t data = local + 30 + get_le(in_, local + 26, 2) + get_le(in_, local + 28, 2);
      need(data, usize, "the data of '" + name + "'");
      const std::string_view body = in_.substr(data, usize);
      if (crc32(body) != crc)
        fail("has entry '" + name + "' whose CRC-32 does not match its data (the file is damaged)");
      if (!out.emplace(name, body).second) fail("holds entry '" + name + "' twice");
      at += 46 + name_len + extra_len + comment_len;
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw io_error("nax::io: " + file_ + " " + what); }
  void need(std::uint64_t at, std::uint64_t n, const std::string& what) const {
    if (at > in_.size() || n > in_.size() - at)
      fail("is truncated: " + what + " (" + std::to_string(n) + " bytes at offset " + std::to_string(at) +
           ") lies past its end (" + std::to_string(in_.size()) + " bytes)");
  }
  std::string_view in_;
  std::string file_;
};

}  // namespace nax::io::detail
